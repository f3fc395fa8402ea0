/**
 * An HTTP agent signed in as an administrator: it creates (once per app) a test admin with a
 * password and signs in through the real endpoint, so the agent carries a real session cookie.
 */
import request from 'supertest';
import { AdminUsersService } from '../../src/auth/admin-users.service';
import type { TestApp } from './test-app';

export type AdminAgent = ReturnType<typeof request.agent>;

export const TEST_ADMIN = { email: 'test-admin@example.com', name: 'Test Admin', password: 'correct horse battery staple' };

export async function adminAgent(t: TestApp): Promise<AdminAgent> {
  const users = t.app.get(AdminUsersService);
  if (!(await users.findByEmail(TEST_ADMIN.email))) await users.create(TEST_ADMIN);
  const agent = request.agent(t.url);
  await agent.post('/api/auth/login-password').send({ email: TEST_ADMIN.email, password: TEST_ADMIN.password }).expect(200);
  return agent;
}
