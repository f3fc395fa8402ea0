import type { AdminUser } from './admin-user.entity';

/**
 * Whether the admin may act for the whole team (require second factors, reset a member's, end
 * anyone's session). Every admin is an owner while the team has no roles.
 */
export function isOwner(_user: AdminUser): boolean {
  return true;
}
