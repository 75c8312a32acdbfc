import { useEffect, useState } from 'react';
import { failureText } from '../../api/errors.ts';

/** Typing pauses this long before the server is asked, so a fast typist sends one query, not one per key. */
const PAUSE_MS = 150;

/**
 * Search as you type (the pointer, ACL, role-member and permission pickers): the matches of the
 * text, asked once typing pauses, and only the answer to the latest text kept (an earlier,
 * slower answer is dropped). Empty text finds nothing. `answered` is the text the matches answer,
 * so "no match" is said only once the server has answered.
 */
export function useSearch<T>(text: string, find: (text: string) => Promise<T[]>): { matches: T[]; answered: string; problem: string | null } {
  const [matches, setMatches] = useState<T[]>([]);
  const [answered, setAnswered] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const search = text.trim();
    if (!search) {
      setMatches([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      find(search).then(
        (found) => {
          if (!live) return;
          setMatches(found);
          setAnswered(search);
          setProblem(null);
        },
        (error: unknown) => live && setProblem(failureText(error)),
      );
    }, PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `find` is a new function each render; the text is what changes the answer.
  }, [text]);
  return { matches, answered, problem };
}
