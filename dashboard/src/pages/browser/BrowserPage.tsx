import { useEffect, useMemo, useState } from 'react';
import { failureText } from '../../api/errors.ts';
import type { ClassSchema } from '../../api/types.ts';
import { useSession } from '../../session.tsx';
import { navigate } from '../../router.ts';
import { ClassView, type Destination } from './ClassView.tsx';
import { NewClassForm } from './SchemaForms.tsx';

interface ClassEntry {
  readonly schema: ClassSchema;
  count?: number | string;
}

/** The data browser: the app's classes with their object counts, and one class open in a grid. */
export function BrowserPage(props: { applicationId: string; className?: string | undefined; objectId?: string | undefined }) {
  const session = useSession();
  const masterKey = session.apps.find((app) => app.applicationId === props.applicationId)?.masterKey;
  // One client per app and master key: a new one on every render would make the grid read its
  // rows again each time a class count arrives.
  const api = useMemo(() => session.appApi(props.applicationId), [props.applicationId, masterKey]);
  const [classes, setClasses] = useState<ClassEntry[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Each visit (a link followed, Back or Forward) opens the class view afresh from its URL.
  const [visits, setVisits] = useState(0);
  useEffect(() => {
    const visited = () => setVisits((n) => n + 1);
    addEventListener('popstate', visited);
    return () => removeEventListener('popstate', visited);
  }, []);
  // `?objectId=` is the same as the object's own path: the URL is written in that form.
  const queryObjectId = props.className && !props.objectId ? new URLSearchParams(location.search).get('objectId') : null;
  useEffect(() => {
    if (!queryObjectId || !props.className) return;
    const rest = new URLSearchParams(location.search);
    rest.delete('objectId');
    const search = rest.toString();
    navigate({ page: 'browser', applicationId: props.applicationId, className: props.className, objectId: queryObjectId }, search ? `?${search}` : '');
  }, [queryObjectId]);
  const open = (to: Destination) => navigate({ page: 'browser', applicationId: props.applicationId, className: to.className, ...(to.objectId ? { objectId: to.objectId } : {}) }, to.search ?? '');
  const schemaOf = (className: string) => classes?.find((entry) => entry.schema.className === className)?.schema;

  useEffect(() => {
    if (!api) return;
    let live = true;
    api.schemas().then(
      (schemas) => {
        if (!live) return;
        const entries: ClassEntry[] = schemas.map((schema) => ({ schema })).sort((a, b) => a.schema.className.localeCompare(b.schema.className));
        setClasses(entries);
        // Counts come one by one: a big class must not hold the list back.
        for (const entry of entries) {
          api.count(entry.schema.className).then(
            (count) => live && setClasses((current) => current && current.map((e) => (e.schema.className === entry.schema.className ? { ...e, count } : e))),
            () => live && setClasses((current) => current && current.map((e) => (e.schema.className === entry.schema.className ? { ...e, count: '?' } : e))),
          );
        }
      },
      (error: unknown) => live && setProblem(failureText(error)),
    );
    return () => {
      live = false;
    };
  }, [api]);

  if (!api) return <p role="alert" className="problem">This account cannot see the app {props.applicationId}.</p>;
  const current = classes?.find((entry) => entry.schema.className === props.className);
  return (
    <div className="browser">
      <nav className="class-list" aria-label="Classes">
        <h2>Classes</h2>
        {problem && <p role="alert" className="problem">{problem}</p>}
        {!classes && !problem && <p className="muted" role="status">Loading classes…</p>}
        <ul>
          {classes?.map((entry) => (
            <li key={entry.schema.className} className={entry === current ? 'current' : undefined}>
              <a
                href={`/dashboard/apps/${encodeURIComponent(props.applicationId)}/browser/${encodeURIComponent(entry.schema.className)}`}
                onClick={(event) => {
                  event.preventDefault();
                  navigate({ page: 'browser', applicationId: props.applicationId, className: entry.schema.className });
                }}
                aria-current={entry === current ? 'page' : undefined}
              >
                <span className="class-name">{entry.schema.className}</span>
                <span className="count" data-count-of={entry.schema.className}>{entry.count === undefined ? '…' : typeof entry.count === 'number' ? entry.count.toLocaleString('en') : entry.count}</span>
              </a>
            </li>
          ))}
        </ul>
        <NewClassForm
          api={api}
          onCreated={(schema) => {
            setClasses((current) => [...(current ?? []), { schema, count: 0 }].sort((a, b) => a.schema.className.localeCompare(b.schema.className)));
            navigate({ page: 'browser', applicationId: props.applicationId, className: schema.className });
          }}
        />
      </nav>
      <section className="class-view">
        {current && !queryObjectId ? (
          <ClassView key={`${current.schema.className}/${props.objectId ?? ''}/${visits}`} api={api} schema={current.schema} objectId={props.objectId} schemaOf={schemaOf} onOpen={open} onSchemaChange={(schema) => setClasses((current) => current && current.map((e) => (e.schema.className === schema.className ? { ...e, schema } : e)))} />
        ) : (
          <p className="muted">{classes ? 'Choose a class.' : ''}</p>
        )}
      </section>
    </div>
  );
}
