import { useState } from 'react';
import type { AppApi } from '../../api/client.ts';
import { failureText } from '../../api/errors.ts';

type Step = { readonly at: 'idle' } | { readonly at: 'counting' } | { readonly at: 'confirm'; readonly count: number } | { readonly at: 'working'; readonly said: string };

/**
 * Deleting a class, empty first: the server refuses to drop a class that holds objects (255), so
 * a class with objects is offered to be emptied (`DELETE /1/purge/<className>`, one transaction:
 * all of them or none) before `DELETE /1/schemas/<className>`, both after a confirmation that
 * says how many objects go. The server's refusal is shown as it answers.
 */
export function DeleteClass(props: { api: AppApi; className: string; onDeleted(): void }) {
  const { api, className } = props;
  const [step, setStep] = useState<Step>({ at: 'idle' });
  const [problem, setProblem] = useState<string | null>(null);

  const ask = async () => {
    setProblem(null);
    setStep({ at: 'counting' });
    try {
      setStep({ at: 'confirm', count: await api.count(className) });
    } catch (error) {
      setProblem(failureText(error));
      setStep({ at: 'idle' });
    }
  };
  const run = async (count: number) => {
    try {
      if (count > 0) {
        setStep({ at: 'working', said: `Emptying ${className} (${count} ${count === 1 ? 'object' : 'objects'})…` });
        await api.purge(className);
      }
      setStep({ at: 'working', said: `Deleting the class ${className}…` });
      await api.deleteClass(className);
      props.onDeleted();
    } catch (error) {
      setProblem(failureText(error));
      setStep({ at: 'idle' });
    }
  };

  return (
    <span className="delete-class">
      {step.at === 'confirm' ? (
        <span role="alertdialog" aria-label={`Confirm deleting the class ${className}`} className="confirm">
          {step.count > 0 ? `${className} holds ${step.count} ${step.count === 1 ? 'object' : 'objects'}. Delete every one of them, then the class and its schema?` : `Delete the class ${className} and its schema?`}{' '}
          <button type="button" className="danger" onClick={() => void run(step.count)}>{step.count > 0 ? 'Empty and delete' : 'Delete'}</button>
          <button type="button" onClick={() => setStep({ at: 'idle' })}>Cancel</button>
        </span>
      ) : (
        <button type="button" className="danger" disabled={step.at !== 'idle'} onClick={() => void ask()}>Delete class</button>
      )}
      {step.at === 'working' && <span role="status"> {step.said}</span>}
      {problem && <span role="alert" className="problem"> {problem}</span>}
    </span>
  );
}
