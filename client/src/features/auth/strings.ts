/**
 * Every text of sign-in, in one place. Tests check them word for word.
 */
import { CODE_INCOMPLETE, CODE_REQUIRED, EMAIL_REQUIRED, PASSWORD_REQUIRED, SECOND_FACTOR_PROMPTS } from '@shared/contracts/auth';

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
    totp: SECOND_FACTOR_PROMPTS.totp,
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
  /** Resend while the last code is too new to ask for another. */
  resendIn: (seconds: number) => `Resend Code in ${seconds} s`,
  changeEmail: 'Change Email',
  back: 'Back',
  signingInAs: 'Signing in as',
  /** The authenticator step. */
  totpLabel: 'Authentication code',
  totpHint: 'Open your authenticator app and enter the code it shows for Support Assistant.',
  recoveryLabel: 'Recovery code',
  recoveryPlaceholder: 'abcde-23456',
  recoveryHint: 'Each of your recovery codes works once.',
  useRecoveryCode: 'Use a recovery code',
  useAuthenticator: 'Use the authenticator app',
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

/** Setting up the second factor (the forced set-up after sign-in, and the console's Security tab). */
export const TOTP_SETUP = {
  enrolTitle: 'Set up two-factor authentication',
  enrolSubtitle: 'Your team requires a second factor for every member. It takes a minute.',
  loading: 'Preparing your authenticator key...',
  loadFailed: 'Could not start the set-up',
  retry: 'Try again',
  scan: 'Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Authy...).',
  qrAlt: (account: string) => `QR code to add ${account} to an authenticator app`,
  manual: "Can't scan it? Enter this key in the app instead:",
  copyKey: 'Copy key',
  copied: 'Copied',
  enterCode: 'Then enter the 6-digit code the app shows',
  codeLabel: 'Code from the app',
  turnOn: 'Turn on',
  turningOn: 'Turning on...',
  confirmFailed: 'Could not turn on two-factor authentication',
  signOut: 'Sign out',
  recoveryTitle: 'Save your recovery codes',
  recoveryIntro: 'If you lose your phone, each of these codes signs you in once. They are shown only now: copy or download them and keep them somewhere safe.',
  recoveryListLabel: 'Recovery codes',
  copyAll: 'Copy codes',
  download: 'Download',
  downloadName: 'support-assistant-recovery-codes.txt',
  saved: 'I have saved my recovery codes',
  continueToConsole: 'Continue to the console',
  done: 'Done',
  on: 'Two-factor authentication is on.',
};
