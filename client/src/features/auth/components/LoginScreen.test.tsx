/**
 * Every rule of the login screen: steps, subtitles, the
 * three-dot progress, back links, validation, banners, resend, and the hand-over to the console.
 * The server is a fake `fetch` answering like the real API.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOGIN } from '../strings';
import { deferredReply, fakeAuthServer, reply, USER } from '../testing/fake-auth-server';
import { renderGate } from '../testing/render-auth';

const BOTH = { methods: { password: true, otp: true } };
const PASSWORD_ONLY = { methods: { password: true, otp: false } };
const OTP_ONLY = { methods: { password: false, otp: true } };

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

async function atLogin() {
  const user = userEvent.setup();
  renderGate();
  await screen.findByRole('heading', { name: 'Admin Access' });
  return user;
}

function currentDot(): number {
  const dots = within(screen.getByRole('list', { name: LOGIN.progressLabel })).getAllByRole('listitem');
  expect(dots).toHaveLength(3);
  return dots.findIndex((d) => d.getAttribute('aria-current') === 'step') + 1;
}

async function enterEmail(user: ReturnType<typeof userEvent.setup>, email = USER.email) {
  await user.type(screen.getByLabelText(LOGIN.emailLabel), email);
  await user.click(screen.getByRole('button', { name: 'Continue' }));
}

const errorBanner = () => screen.findByRole('alert');

describe('login screen: email step', () => {
  it("shows 'Admin Access', 'Enter your email to continue' and the first of three dots", async () => {
    fakeAuthServer();
    await atLogin();
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
    expect(currentDot()).toBe(1);
  });

  it("Continue is disabled while the email is empty; Enter on an empty or blank email says 'Email is required'", async () => {
    const server = fakeAuthServer();
    const user = await atLogin();
    const continueButton = screen.getByRole('button', { name: 'Continue' });
    expect(continueButton).toBeDisabled();
    await user.type(screen.getByLabelText(LOGIN.emailLabel), '{Enter}');
    expect(await errorBanner()).toHaveTextContent('Email is required');
    // A blank email is no email (browsers strip the spaces of an email field).
    await user.type(screen.getByLabelText(LOGIN.emailLabel), '   ');
    expect(continueButton).toBeDisabled();
    await user.type(screen.getByLabelText(LOGIN.emailLabel), '{Enter}');
    expect(await errorBanner()).toHaveTextContent('Email is required');
    expect(server.callsTo('POST /api/auth/check-methods')).toHaveLength(0);
  });

  it("checks the email with the server's contract: one without @ is refused in the same words, without a call", async () => {
    const server = fakeAuthServer();
    const user = await atLogin();
    await enterEmail(user, 'ada.example.com');
    expect(await errorBanner()).toHaveTextContent('Enter a valid email address');
    expect(server.callsTo('POST /api/auth/check-methods')).toHaveLength(0);
  });

  it("shows the server's message in a red banner when the email is not authorized", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.error(403, 'forbidden', 'Email not authorized') });
    const user = await atLogin();
    await enterEmail(user, 'stranger@example.com');
    const banner = await errorBanner();
    expect(banner).toHaveTextContent('Email not authorized');
    expect(banner).toHaveClass('is-error');
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
  });

  it("a different server message (success false) is shown as given", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => ({ status: 200, body: { success: false, message: 'This account is locked' } }) });
    const user = await atLogin();
    await enterEmail(user);
    expect(await errorBanner()).toHaveTextContent('This account is locked');
  });

  it("'Email not authorized' when no method comes back", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok({ methods: { password: false, otp: false } }) });
    const user = await atLogin();
    await enterEmail(user);
    expect(await errorBanner()).toHaveTextContent('Email not authorized');
  });

  it("'Failed to check login methods' when the request fails without a server message", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => 'network-error' });
    const user = await atLogin();
    await enterEmail(user);
    expect(await errorBanner()).toHaveTextContent('Failed to check login methods');
  });

  it('sends the trimmed email', async () => {
    const server = fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(BOTH) });
    const user = await atLogin();
    await enterEmail(user, '  ada@example.com  ');
    await screen.findByText('Choose your preferred login method');
    expect(server.callsTo('POST /api/auth/check-methods')[0].body).toEqual({ email: 'ada@example.com' });
  });
});

describe('login screen: method choice and back links', () => {
  it("both methods: the method choice (second dot); 'Change Email' goes back to the email step", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(BOTH) });
    const user = await atLogin();
    await enterEmail(user);
    expect(await screen.findByText('Choose your preferred login method')).toBeInTheDocument();
    expect(currentDot()).toBe(2);
    // The focus moves with the step, never left on the page: the first method here.
    await waitFor(() => expect(screen.getByRole('button', { name: /Login with Password/ })).toHaveFocus());
    await user.click(screen.getByRole('button', { name: 'Change Email' }));
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
    expect(currentDot()).toBe(1);
    await waitFor(() => expect(screen.getByLabelText(LOGIN.emailLabel)).toHaveFocus());
  });

  it("both methods, password: the password step (third dot); 'Back' returns to the method choice", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(BOTH) });
    const user = await atLogin();
    await enterEmail(user);
    await user.click(await screen.findByRole('button', { name: /Login with Password/ }));
    expect(screen.getByText('Enter your password to login')).toBeInTheDocument();
    expect(currentDot()).toBe(3);
    await waitFor(() => expect(screen.getByLabelText('Password')).toHaveFocus());
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByText('Choose your preferred login method')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: /Login with Password/ })).toHaveFocus());
  });

  it("both methods, code: sends a code, moves to the code step with a green banner; 'Back' returns to the method choice", async () => {
    const server = fakeAuthServer({
      'POST /api/auth/check-methods': () => reply.ok(BOTH),
      'POST /api/auth/request-otp': () => reply.ok({ message: 'Verification code sent to your email' }),
    });
    const user = await atLogin();
    await enterEmail(user);
    await user.click(await screen.findByRole('button', { name: /Email me a code/ }));
    expect(await screen.findByText('Enter the verification code sent to your email')).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/request-otp')[0].body).toEqual({ email: USER.email });
    const banner = screen.getByRole('status');
    expect(banner).toHaveTextContent('Verification code sent to your email');
    expect(banner).toHaveClass('is-success');
    expect(currentDot()).toBe(3);
    // The code step itself says how long the code lasts (code-only accounts never see the method card).
    expect(screen.getByLabelText('Verification code')).toHaveAccessibleDescription('The code expires in 10 minutes and works once.');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByText('Choose your preferred login method')).toBeInTheDocument();
  });

  it("choosing the code when sending fails: stays on the method choice with the error ('Failed to send verification code' by default)", async () => {
    fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(BOTH), 'POST /api/auth/request-otp': () => 'network-error' });
    const user = await atLogin();
    await enterEmail(user);
    await user.click(await screen.findByRole('button', { name: /Email me a code/ }));
    expect(await errorBanner()).toHaveTextContent('Failed to send verification code');
    expect(screen.getByText('Choose your preferred login method')).toBeInTheDocument();
  });

  it("only password: straight to the password step; 'Back' goes to the email step", async () => {
    const server = fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(PASSWORD_ONLY) });
    const user = await atLogin();
    await enterEmail(user);
    expect(await screen.findByText('Enter your password to login')).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/request-otp')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
  });

  it("only code: the code is requested automatically and the code step shows; 'Back' goes to the email step", async () => {
    const server = fakeAuthServer({
      'POST /api/auth/check-methods': () => reply.ok(OTP_ONLY),
      'POST /api/auth/request-otp': () => reply.ok({ message: 'Verification code sent to your email' }),
    });
    const user = await atLogin();
    await enterEmail(user);
    expect(await screen.findByText('Enter the verification code sent to your email')).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/request-otp')).toHaveLength(1);
    expect(screen.queryByText('Choose your preferred login method')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
  });
});

describe('login screen: password step', () => {
  async function atPassword(routes: Parameters<typeof fakeAuthServer>[0] = {}) {
    const server = fakeAuthServer({ 'POST /api/auth/check-methods': () => reply.ok(PASSWORD_ONLY), ...routes });
    const user = await atLogin();
    await enterEmail(user);
    await screen.findByText('Enter your password to login');
    return { user, server };
  }

  it("Login is disabled while the password is empty; Enter on an empty password says 'Password is required'", async () => {
    const { user, server } = await atPassword();
    expect(screen.getByRole('button', { name: 'Login' })).toBeDisabled();
    await user.type(screen.getByLabelText(LOGIN.passwordLabel), '{Enter}');
    expect(await errorBanner()).toHaveTextContent('Password is required');
    expect(server.callsTo('POST /api/auth/login-password')).toHaveLength(0);
  });

  it("shows the server's message for a wrong password, and 'Login failed' when there is none", async () => {
    const { user, server } = await atPassword({ 'POST /api/auth/login-password': () => reply.error(401, 'unauthorized', 'Invalid email or password') });
    await user.type(screen.getByLabelText(LOGIN.passwordLabel), 'wrong password!');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await errorBanner()).toHaveTextContent('Invalid email or password');
    server.on('POST /api/auth/login-password', () => ({ status: 502 }));
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Login failed'));
  });

  it("signs in: 'Logging in...' while busy, then 'Login successful!' in green, then the console", async () => {
    const pending = deferredReply(reply.ok({ message: 'Login successful', user: USER }));
    const { user, server } = await atPassword({ 'POST /api/auth/login-password': pending.handler });
    await user.type(screen.getByLabelText(LOGIN.passwordLabel), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('button', { name: 'Logging in...' })).toBeDisabled();
    pending.release();
    const banner = await screen.findByText('Login successful!');
    expect(banner.closest('[role="status"]')).toHaveClass('is-success');
    expect(server.callsTo('POST /api/auth/login-password')[0].body).toEqual({ email: USER.email, password: 'correct horse battery' });
    expect(await screen.findByText('Console content', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.queryByText('Admin Access')).not.toBeInTheDocument();
  });
});

describe('login screen: code step', () => {
  async function atCode(routes: Parameters<typeof fakeAuthServer>[0] = {}) {
    const server = fakeAuthServer({
      'POST /api/auth/check-methods': () => reply.ok(OTP_ONLY),
      'POST /api/auth/request-otp': () => reply.ok({ message: 'Verification code sent to your email' }),
      ...routes,
    });
    const user = await atLogin();
    await enterEmail(user);
    await screen.findByText('Enter the verification code sent to your email');
    return { user, server, input: screen.getByLabelText(LOGIN.codeLabel) as HTMLInputElement };
  }

  it('strips non-digits and keeps at most 6 digits', async () => {
    const { user, input } = await atCode();
    await user.type(input, '12a-3 b4');
    expect(input.value).toBe('1234');
    await user.type(input, '56789');
    expect(input.value).toBe('123456');
    await user.clear(input);
    await user.paste('code: 987-654-321');
    expect(input.value).toBe('987654');
  });

  it("Verify is disabled until exactly 6 digits; Enter on an empty code says 'Verification code is required'", async () => {
    const { user, input, server } = await atCode();
    const verify = screen.getByRole('button', { name: 'Verify Code' });
    expect(verify).toBeDisabled();
    await user.type(input, '{Enter}');
    expect(await errorBanner()).toHaveTextContent('Verification code is required');
    await user.type(input, '12345');
    expect(verify).toBeDisabled();
    await user.type(input, '{Enter}');
    expect(await errorBanner()).toHaveTextContent(LOGIN.codeIncomplete);
    await user.type(input, '6');
    expect(verify).toBeEnabled();
    expect(server.callsTo('POST /api/auth/verify-otp')).toHaveLength(0);
  });

  it("shows the server's message for a wrong code, and 'Verification failed' when there is none", async () => {
    const { user, input, server } = await atCode({
      'POST /api/auth/verify-otp': () => reply.error(401, 'unauthorized', 'Invalid verification code. 4 attempts left.'),
    });
    await user.type(input, '111111');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await errorBanner()).toHaveTextContent('Invalid verification code. 4 attempts left.');
    // The refused code is gone and the field has the focus for the next try.
    expect(input).toHaveValue('');
    await waitFor(() => expect(input).toHaveFocus());
    server.on('POST /api/auth/verify-otp', () => 'network-error');
    await user.type(input, '222222');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Verification failed'));
  });

  it("a success without a user does not sign in ('Verification failed')", async () => {
    const { user, input } = await atCode({ 'POST /api/auth/verify-otp': () => reply.ok({ message: 'ok' }) });
    await user.type(input, '123456');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await errorBanner()).toHaveTextContent('ok');
    expect(screen.queryByText('Console content')).not.toBeInTheDocument();
  });

  it("signs in with the code: 'Login successful!' in green, then the console", async () => {
    const { user, input, server } = await atCode({ 'POST /api/auth/verify-otp': () => reply.ok({ message: 'Login successful', user: USER }) });
    await user.type(input, '123456');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));
    expect(await screen.findByText('Login successful!')).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/verify-otp')[0].body).toEqual({ email: USER.email, otp: '123456' });
    expect(await screen.findByText('Console content', {}, { timeout: 3000 })).toBeInTheDocument();
  });

  /** Moves the clock past the 30 s between two codes; Resend is enabled again within its next tick. */
  async function afterCooldown() {
    vi.setSystemTime(Date.now() + 30_000);
    return screen.findByRole('button', { name: 'Resend Code' }, { timeout: 3000 });
  }

  it("'Resend Code' waits out the 30 s between two codes, counting down; then requests a new code and shows 'New verification code sent!' in green", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { user, server } = await atCode();
    expect(screen.getByRole('button', { name: /^Resend Code in (30|29) s$/ })).toBeDisabled();
    await user.click(await afterCooldown());
    const banner = await screen.findByText('New verification code sent!');
    expect(banner.closest('[role="status"]')).toHaveClass('is-success');
    expect(server.callsTo('POST /api/auth/request-otp')).toHaveLength(2);
    // The new code starts a new wait.
    expect(await screen.findByRole('button', { name: /^Resend Code in \d+ s$/ })).toBeDisabled();
  });

  it('one message at a time: an incomplete code replaces the green "code sent" with the red reason', async () => {
    const { user, input } = await atCode();
    expect(screen.getByText('Verification code sent to your email')).toBeInTheDocument();
    await waitFor(() => expect(input).toHaveFocus());
    await user.type(input, '123{Enter}');
    expect(await errorBanner()).toHaveTextContent('Enter all 6 digits');
    expect(screen.queryByText('Verification code sent to your email')).not.toBeInTheDocument();
  });

  it("a refused resend shows the server's message (e.g. the 30-second limit), else 'Failed to resend code'", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { user, server } = await atCode();
    server.on('POST /api/auth/request-otp', () => reply.error(429, 'rate_limited', 'Please wait 27 seconds before requesting another code.'));
    await user.click(await afterCooldown());
    expect(await errorBanner()).toHaveTextContent('Please wait 27 seconds before requesting another code.');
    server.on('POST /api/auth/request-otp', () => 'network-error');
    await user.click(screen.getByRole('button', { name: 'Resend Code' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed to resend code'));
  });
});

describe('login screen: the authenticator step', () => {
  const STEP = { success: true, message: 'Enter the 6-digit code from your authenticator app', secondFactor: 'totp', data: { secondFactor: 'totp', expiresAt: '2030-01-01T00:00:00Z' } };

  async function atAuthenticatorStep() {
    const server = fakeAuthServer({
      'POST /api/auth/check-methods': () => reply.ok(PASSWORD_ONLY),
      'POST /api/auth/login-password': () => ({ status: 200, body: STEP }),
      'POST /api/auth/logout': () => reply.ok({}),
    });
    const user = await atLogin();
    await enterEmail(user);
    await user.type(await screen.findByLabelText(LOGIN.passwordLabel), 'a password{Enter}');
    await screen.findByText('Enter the 6-digit code from your authenticator app');
    return { server, user };
  }

  it('follows the password as a fourth step: its own subtitle, the fourth dot, the code field focused, no user yet', async () => {
    await atAuthenticatorStep();
    const dots = within(screen.getByRole('list', { name: LOGIN.progressLabel })).getAllByRole('listitem');
    expect(dots).toHaveLength(4);
    expect(dots[3]).toHaveAttribute('aria-current', 'step');
    expect(screen.getByLabelText(LOGIN.totpLabel)).toHaveFocus();
    expect(screen.queryByText('Console content')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: LOGIN.verify })).toBeDisabled();
  });

  it('a refused code is cleared and its message shown; the right one signs in', async () => {
    const { server, user } = await atAuthenticatorStep();
    server.on('POST /api/auth/verify-totp', (body) =>
      body.code === '654321' ? reply.ok({ message: 'Login successful', user: USER, data: { user: USER, expiresAt: '2030-01-01T00:00:00Z' } }) : reply.error(401, 'unauthorized', 'The code is not right. Enter the newest code from your authenticator app.'),
    );
    await user.type(screen.getByLabelText(LOGIN.totpLabel), '123 456{Enter}');
    expect(await errorBanner()).toHaveTextContent('The code is not right');
    expect(screen.getByLabelText(LOGIN.totpLabel)).toHaveValue('');
    await user.type(screen.getByLabelText(LOGIN.totpLabel), '654321');
    await user.click(screen.getByRole('button', { name: LOGIN.verify }));
    expect(await screen.findByText(LOGIN.loginSuccessful)).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/verify-totp').map((c) => c.body)).toEqual([{ code: '123456' }, { code: '654321' }]);
  });

  it('accepts a recovery code instead; Back abandons the half-done sign-in on the server', async () => {
    const { server, user } = await atAuthenticatorStep();
    server.on('POST /api/auth/verify-totp', () => reply.error(401, 'unauthorized', 'This recovery code is not valid or was already used.'));
    await user.click(screen.getByRole('button', { name: LOGIN.useRecoveryCode }));
    await user.type(screen.getByLabelText(LOGIN.recoveryLabel), 'ABCDE-23456{Enter}');
    expect(await errorBanner()).toHaveTextContent('recovery code is not valid');
    expect(server.callsTo('POST /api/auth/verify-totp')[0].body).toEqual({ recoveryCode: 'ABCDE-23456' });
    await user.click(screen.getByRole('button', { name: LOGIN.back }));
    expect(await screen.findByText('Enter your email to continue')).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/logout')).toHaveLength(1);
  });
});
