/**
 * An HTTP agent for admin routes. Until sign-in lands this is a plain agent; afterwards it signs
 * in and carries the session cookie.
 */
import request from 'supertest';
import type { TestApp } from './test-app';

export type AdminAgent = ReturnType<typeof request.agent>;

export async function adminAgent(t: TestApp): Promise<AdminAgent> {
  return request.agent(t.url);
}
