/**
 * Every text of sign-in, in one place. Tests check them word for word.
 */
import { CODE_INCOMPLETE, CODE_REQUIRED, EMAIL_REQUIRED, PASSWORD_REQUIRED } from '@shared/contracts/auth';

export const GATE = {
  checking: 'Checking authentication...',
};

export const LOGIN = {
  title: 'Admin Access',
  subtitles: {
    email: 'Enter your email to continue',
    method: 'Choose your preferred login method',
    password: 'Enter your password to login',
    otp: 'Enter the verification code sent to your email',
  },
  progressLabel: 'Sign-in progress',
  stepOf: (step: number, total: number) => `Step ${step} of ${total}`,
  emailLabel: 'Email address',
  emailPlaceholder: 'you@example.com',
  passwordLabel: 'Password',
  codeLabel: 'Verification code',
  codeExpiry: 'The code expires in 10 minutes and works once.',
  codePlaceholder: '000000',
  continue: 'Continue',
  checking: 'Checking...',
  usePassword: 'Login with Password',
  usePasswordHint: 'Use the password set for this account',
  useCode: 'Email me a code',
  useCodeHint: 'Get a 6-digit code that works once for 10 minutes',
  sendingCode: 'Sending code...',
  login: 'Login',
  loggingIn: 'Logging in...',
  verify: 'Verify Code',
  verifying: 'Verifying...',
  resend: 'Resend Code',
  changeEmail: 'Change Email',
  back: 'Back',
  signingInAs: 'Signing in as',
  /** Success banners. */
  loginSuccessful: 'Login successful!',
  codeSent: 'Verification code sent to your email',
  newCodeSent: 'New verification code sent!',
  /** Validation: the sign-in contracts' own messages. */
  emailRequired: EMAIL_REQUIRED,
  passwordRequired: PASSWORD_REQUIRED,
  codeRequired: CODE_REQUIRED,
  codeIncomplete: CODE_INCOMPLETE,
  /** Fallbacks when the server gives no message. */
  emailNotAuthorized: 'Email not authorized',
  checkMethodsFailed: 'Failed to check login methods',
  loginFailed: 'Login failed',
  sendCodeFailed: 'Failed to send verification code',
  verificationFailed: 'Verification failed',
  resendFailed: 'Failed to resend code',
};

/** Fallbacks of the session calls; they are only logged. */
export const SESSION = {
  notAuthenticated: 'Not authenticated',
  refreshFailed: 'Token refresh failed',
  logoutFailed: 'Logout failed',
  outsideProvider: 'useAuth must be used within an AuthProvider',
};
