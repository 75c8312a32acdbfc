/** The app's roles: not built yet. */
export function RolesPage(_props: { applicationId: string }) {
  return <p className="muted">Roles: coming.</p>;
}
