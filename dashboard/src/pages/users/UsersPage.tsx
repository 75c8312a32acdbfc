/** The app's users: not built yet. */
export function UsersPage(_props: { applicationId: string }) {
  return <p className="muted">Users: coming.</p>;
}
