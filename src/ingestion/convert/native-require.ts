/**
 * Node's own `require`, for the few packages that are (or depend on) ES modules only: linkedom's
 * selector engine and pdf.js. Node 20.19+ loads ES modules through require; a test runner that
 * replaces `require` (and `node:module`) would try to transpile them instead and fail, so the
 * module loader is taken from process.getBuiltinModule, which no runner replaces.
 */
import type * as NodeModule from 'node:module';

const loader = (process as unknown as { getBuiltinModule(id: 'node:module'): typeof NodeModule }).getBuiltinModule('node:module');

export const nativeRequire: NodeJS.Require = loader.createRequire(__filename);
