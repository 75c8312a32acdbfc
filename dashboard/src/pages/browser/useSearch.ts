import { useEffect, useState } from 'react';

/**
 * Search as you type: the matches of the text, asked once typing pauses (150 ms), and only the
 * answer to the latest text kept (an earlier, slower answer is dropped). Empty text finds nothing.
 */
export function useSearch<T>(text: string, find: (text: string) => Promise<T[]>): { matches: T[]; problem: string | null } {
  const [matches, setMatches] = useState<T[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!text.trim()) {
      setMatches([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      find(text).then(
        (found) => {
          if (!live) return;
          setMatches(found);
          setProblem(null);
        },
        (error: unknown) => live && setProblem((error as Error).message),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `find` is a new function each render; the text is what changes the answer.
  }, [text]);
  return { matches, problem };
}
