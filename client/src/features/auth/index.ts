/**
 * The auth feature's public surface: what the admin console uses of sign-in, the session and the
 * second factor. Other features import auth only from here (eslint.config.mjs enforces it).
 */
import './login.css';
import './second-factor.css';

export { AuthProvider, createAdminQueryClient, useAuth } from './AuthProvider';
export type { AuthContextValue } from './AuthProvider';
export { securityApi, serverMessage } from './api/auth-api';
export { AuthGate } from './components/AuthGate';
export { Banner } from './components/Banner';
export { sanitizeCode } from './components/CodeInput';
export { RecoveryCodesPanel } from './components/RecoveryCodesPanel';
export { TotpSetup } from './components/TotpSetup';
export { TOTP_SETUP } from './strings';
