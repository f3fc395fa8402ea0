/** Placeholder until the sign-in issue lands: the authentication gate and console go here. */
export default function AdminApp() {
  return <p>Checking authentication...</p>;
}
