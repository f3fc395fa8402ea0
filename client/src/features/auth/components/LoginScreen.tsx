import { ArrowLeft, KeyRound, LifeBuoy, LoaderCircle, Mail, ShieldCheck, Smartphone } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { EmailRequestSchema, OTP_DIGITS, OTP_RESEND_SECONDS, PasswordLoginSchema, SecondFactorCodeSchema, VerifyOtpSchema } from '@shared/contracts/auth';
import { check } from '@shared/contracts/rules';
import type { LoginMethods } from '../api/auth-api';
import { useAuth } from '../AuthProvider';
import { LOGIN } from '../strings';
import { Banner } from './Banner';
import { CodeInput } from './CodeInput';
import { StepProgress } from './StepProgress';
import '../login.css';

type Step = 'email' | 'method' | 'password' | 'otp' | 'totp';

/** Three dots (email, method, password or code); an account with a second factor has a fourth step. */
const STEP_NUMBER: Record<Step, 1 | 2 | 3 | 4> = { email: 1, method: 2, password: 3, otp: 3, totp: 4 };
const CODE_LENGTH = OTP_DIGITS;


/** Date.now(), ticking every second until `until` has passed. */
function useNow(until: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (until <= Date.now()) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [until]);
  return now;
}

function Busy({ busy, idle, working }: { busy: boolean; idle: string; working: string }) {
  return busy ? (
    <>
      <LoaderCircle className="login-spin" size={18} aria-hidden="true" />
      {working}
    </>
  ) : (
    <>{idle}</>
  );
}

/**
 * 'Admin Access': email -> (method choice when both are allowed) -> password or emailed code.
 * Only password: straight to the password step. Only code: the code is requested at once.
 * Back links: 'Change Email' from the method choice; 'Back' from password or code, to the method
 * choice when both methods are allowed, otherwise to the email step.
 * An account with a second factor then asks for the authenticator code (or a recovery code) in a
 * step of its own; Back from it abandons the half-done sign-in.
 */
export function LoginScreen() {
  const auth = useAuth();
  const ids = useId();
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string | null>(null);
  const [methods, setMethods] = useState<LoginMethods | null>(null);
  // One message at a time: a new one (an error, or "code sent") replaces the one before.
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const setError = (text: string) => setMessage(text ? { kind: 'error', text } : null);
  const setSuccess = (text: string) => setMessage(text ? { kind: 'success', text } : null);
  const success = message?.kind === 'success' ? message.text : '';
  // When the server will take another code request for this email (it refuses one sooner).
  const [resendAt, setResendAt] = useState(0);
  const now = useNow(resendAt);
  const resendWait = Math.max(0, Math.ceil((resendAt - now) / 1000));
  const card = useRef<HTMLElement>(null);
  const [busy, setBusy] = useState<null | 'check' | 'send' | 'login' | 'verify' | 'resend' | 'back'>(null);

  const trimmedEmail = email.trim();
  const bothMethods = Boolean(methods?.password && methods?.otp);

  const go = (next: Step) => {
    setStep(next);
    setError('');
    setSuccess('');
    setPassword('');
    setCode('');
    setRecovery(null);
  };

  const run = async (kind: NonNullable<typeof busy>, work: () => Promise<void>) => {
    if (busy) return;
    setBusy(kind);
    setError('');
    setSuccess('');
    try {
      await work();
    } finally {
      setBusy(null);
    }
  };

  const sendCode = async (): Promise<boolean> => {
    const result = await auth.requestOtp(trimmedEmail);
    if (!result.success) {
      setError(result.message || LOGIN.sendCodeFailed);
      return false;
    }
    go('otp');
    setResendAt(Date.now() + OTP_RESEND_SECONDS * 1000);
    setSuccess(result.message || LOGIN.codeSent);
    return true;
  };

  /** Checks a form with the server's contract; false (and its message shown) when refused. */
  const valid = (schema: Parameters<typeof check>[0], body: unknown): boolean => {
    const result = check(schema, body);
    if (!result.ok) setError(result.problem.message);
    return result.ok;
  };

  const submitEmail = () => {
    if (!valid(EmailRequestSchema, { email: trimmedEmail })) return;
    void run('check', async () => {
      const result = await auth.checkLoginMethods(trimmedEmail);
      const found = result.success ? result.methods : undefined;
      if (!found || (!found.password && !found.otp)) {
        setError(result.message && !result.success ? result.message : LOGIN.emailNotAuthorized);
        return;
      }
      setMethods(found);
      if (found.password && found.otp) go('method');
      else if (found.password) go('password');
      else await sendCode();
    });
  };

  const submitPassword = () => {
    if (!valid(PasswordLoginSchema, { email: trimmedEmail, password })) return;
    void run('login', async () => {
      const result = await auth.loginWithPassword(trimmedEmail, password);
      if (result.secondFactor === 'totp') go('totp');
      else if (result.success && !result.secondFactor) setSuccess(LOGIN.loginSuccessful);
      else if (!result.success) setError(result.message || LOGIN.loginFailed);
    });
  };

  const submitCode = () => {
    if (!valid(VerifyOtpSchema, { email: trimmedEmail, otp: code })) return;
    void run('verify', async () => {
      const result = await auth.verifyOtp(trimmedEmail, code);
      if (result.secondFactor === 'totp') go('totp');
      else if (result.success && !result.secondFactor) setSuccess(LOGIN.loginSuccessful);
      else if (!result.success) {
        // A refused code is cleared: the next try starts from an empty field.
        setCode('');
        setError(result.message || LOGIN.verificationFailed);
      }
    });
  };

  /** The authenticator code, or a recovery code when the admin chose that. A refused one is cleared for the next try. */
  const submitSecondFactor = () => {
    const proof = recovery === null ? { code } : { recoveryCode: recovery };
    if (!valid(SecondFactorCodeSchema, proof)) return;
    void run('verify', async () => {
      const result = await auth.verifySecondFactor(proof);
      if (result.success && result.user) {
        setSuccess(LOGIN.loginSuccessful);
        return;
      }
      setError(result.message || LOGIN.verificationFailed);
      if (recovery === null) setCode('');
      else setRecovery('');
    });
  };

  /** Leaves the authenticator step: the half-done sign-in is ended on the server too. */
  const abandonSecondFactor = () =>
    void run('back', async () => {
      await auth.logout();
      go(bothMethods ? 'method' : 'email');
    });

  const resendCode = () =>
    void run('resend', async () => {
      const result = await auth.requestOtp(trimmedEmail);
      if (result.success) {
        setCode('');
        setResendAt(Date.now() + OTP_RESEND_SECONDS * 1000);
        setSuccess(LOGIN.newCodeSent);
      } else setError(result.message || LOGIN.resendFailed);
    });

  const back = () => go(bothMethods ? 'method' : 'email');

  /** Enter submits even while the button is disabled, so an empty field says what is missing. */
  const submitOnEnter = (submit: () => void) => (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      submit();
    }
  };
  const onSubmit = (submit: () => void) => (event: FormEvent) => {
    event.preventDefault();
    submit();
  };

  // Each step's field has the focus once the step is ready (its field is disabled while the
  // request that led there runs, so autoFocus alone would leave the focus on the page), and gets
  // it back after a refused try. Focus the visitor put somewhere in the card stays where it is.
  useEffect(() => {
    if (busy !== null || !card.current) return;
    const active = document.activeElement;
    if (active && active !== document.body && card.current.contains(active) && !(active as HTMLInputElement).disabled) return;
    card.current.querySelector<HTMLElement>('input:not([hidden]):not([disabled]), .login-method:not([disabled])')?.focus();
  }, [step, busy, recovery]);

  const signedIn = success === LOGIN.loginSuccessful;
  const locked = busy !== null || signedIn;

  let body: ReactNode;
  if (step === 'email') {
    body = (
      <form className="login-form" onSubmit={onSubmit(submitEmail)} noValidate>
        <label className="login-label" htmlFor={`${ids}-email`}>
          {LOGIN.emailLabel}
        </label>
        <div className="login-field">
          <Mail size={18} aria-hidden="true" />
          <input
            id={`${ids}-email`}
            type="email"
            autoComplete="username"
            autoFocus
            placeholder={LOGIN.emailPlaceholder}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            onKeyDown={submitOnEnter(submitEmail)}
            disabled={locked}
          />
        </div>
        <button type="submit" className="login-primary" disabled={!email || locked}>
          <Busy busy={busy === 'check' || busy === 'send'} idle={LOGIN.continue} working={LOGIN.checking} />
        </button>
      </form>
    );
  } else if (step === 'method') {
    body = (
      <div className="login-form">
        <p className="login-who">
          {LOGIN.signingInAs} <strong>{trimmedEmail}</strong>
        </p>
        <div className="login-methods">
          <button type="button" className="login-method" onClick={() => go('password')} disabled={locked}>
            <KeyRound size={22} aria-hidden="true" />
            <span>
              <strong>{LOGIN.usePassword}</strong>
              <small>{LOGIN.usePasswordHint}</small>
            </span>
          </button>
          <button type="button" className="login-method" onClick={() => void run('send', async () => void (await sendCode()))} disabled={locked}>
            <Mail size={22} aria-hidden="true" />
            <span>
              <strong>{busy === 'send' ? LOGIN.sendingCode : LOGIN.useCode}</strong>
              <small>{LOGIN.useCodeHint}</small>
            </span>
          </button>
        </div>
        <button type="button" className="login-link" onClick={() => go('email')} disabled={locked}>
          <ArrowLeft size={16} aria-hidden="true" />
          {LOGIN.changeEmail}
        </button>
      </div>
    );
  } else if (step === 'password') {
    body = (
      <form className="login-form" onSubmit={onSubmit(submitPassword)} noValidate>
        <p className="login-who">
          {LOGIN.signingInAs} <strong>{trimmedEmail}</strong>
        </p>
        <input type="email" name="email" autoComplete="username" value={trimmedEmail} readOnly hidden />
        <label className="login-label" htmlFor={`${ids}-password`}>
          {LOGIN.passwordLabel}
        </label>
        <div className="login-field">
          <KeyRound size={18} aria-hidden="true" />
          <input
            id={`${ids}-password`}
            type="password"
            autoComplete="current-password"
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            onKeyDown={submitOnEnter(submitPassword)}
            disabled={locked}
          />
        </div>
        <button type="submit" className="login-primary" disabled={!password || locked}>
          <Busy busy={busy === 'login'} idle={LOGIN.login} working={LOGIN.loggingIn} />
        </button>
        <button type="button" className="login-link" onClick={back} disabled={locked}>
          <ArrowLeft size={16} aria-hidden="true" />
          {LOGIN.back}
        </button>
      </form>
    );
  } else if (step === 'totp') {
    body = (
      <form className="login-form" onSubmit={onSubmit(submitSecondFactor)} noValidate>
        <p className="login-who">
          {LOGIN.signingInAs} <strong>{trimmedEmail}</strong>
        </p>
        {recovery === null ? (
          <>
            <label className="login-label" htmlFor={`${ids}-totp`}>
              {LOGIN.totpLabel}
            </label>
            <CodeInput
              key="totp"
              id={`${ids}-totp`}
              autoFocus
              placeholder={LOGIN.codePlaceholder}
              value={code}
              onChange={setCode}
              onKeyDown={submitOnEnter(submitSecondFactor)}
              disabled={locked}
              aria-describedby={`${ids}-totp-hint`}
            />
            <p id={`${ids}-totp-hint`} className="login-hint">
              {LOGIN.totpHint}
            </p>
          </>
        ) : (
          <>
            <label className="login-label" htmlFor={`${ids}-recovery`}>
              {LOGIN.recoveryLabel}
            </label>
            <div className="login-field">
              <LifeBuoy size={18} aria-hidden="true" />
              <input
                key="recovery"
                id={`${ids}-recovery`}
                type="text"
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                autoFocus
                placeholder={LOGIN.recoveryPlaceholder}
                value={recovery}
                onChange={(e) => setRecovery(e.target.value.slice(0, 20))}
                onKeyDown={submitOnEnter(submitSecondFactor)}
                disabled={locked}
                aria-describedby={`${ids}-recovery-hint`}
              />
            </div>
            <p id={`${ids}-recovery-hint`} className="login-hint">
              {LOGIN.recoveryHint}
            </p>
          </>
        )}
        <button type="submit" className="login-primary" disabled={(recovery === null ? code.length !== CODE_LENGTH : recovery.trim() === '') || locked}>
          <Busy busy={busy === 'verify'} idle={LOGIN.verify} working={LOGIN.verifying} />
        </button>
        <div className="login-row">
          <button type="button" className="login-link" onClick={abandonSecondFactor} disabled={locked}>
            <ArrowLeft size={16} aria-hidden="true" />
            {LOGIN.back}
          </button>
          <button
            type="button"
            className="login-link"
            onClick={() => {
              setError('');
              setCode('');
              setRecovery(recovery === null ? '' : null);
            }}
            disabled={locked}
          >
            {recovery === null ? <LifeBuoy size={16} aria-hidden="true" /> : <Smartphone size={16} aria-hidden="true" />}
            {recovery === null ? LOGIN.useRecoveryCode : LOGIN.useAuthenticator}
          </button>
        </div>
      </form>
    );
  } else {
    body = (
      <form className="login-form" onSubmit={onSubmit(submitCode)} noValidate>
        <p className="login-who">
          {LOGIN.signingInAs} <strong>{trimmedEmail}</strong>
        </p>
        <label className="login-label" htmlFor={`${ids}-code`}>
          {LOGIN.codeLabel}
        </label>
        <CodeInput
          id={`${ids}-code`}
          autoFocus
          placeholder={LOGIN.codePlaceholder}
          value={code}
          onChange={setCode}
          onKeyDown={submitOnEnter(submitCode)}
          disabled={locked}
          aria-describedby={`${ids}-code-expiry`}
        />
        <p id={`${ids}-code-expiry`} className="login-hint">
          {LOGIN.codeExpiry}
        </p>
        <button type="submit" className="login-primary" disabled={code.length !== CODE_LENGTH || locked}>
          <Busy busy={busy === 'verify'} idle={LOGIN.verify} working={LOGIN.verifying} />
        </button>
        <div className="login-row">
          <button type="button" className="login-link" onClick={back} disabled={locked}>
            <ArrowLeft size={16} aria-hidden="true" />
            {LOGIN.back}
          </button>
          <button type="button" className="login-link" onClick={resendCode} disabled={locked || resendWait > 0}>
            {busy === 'resend' ? LOGIN.sendingCode : resendWait > 0 ? LOGIN.resendIn(resendWait) : LOGIN.resend}
          </button>
        </div>
      </form>
    );
  }

  return (
    <main className="login-page">
      <section ref={card} className="login-card" aria-labelledby={`${ids}-title`}>
        <div className="login-badge" aria-hidden="true">
          <ShieldCheck size={28} />
        </div>
        <h1 id={`${ids}-title`} className="login-title">
          {LOGIN.title}
        </h1>
        <p className="login-subtitle">{LOGIN.subtitles[step]}</p>
        <StepProgress current={STEP_NUMBER[step]} total={step === 'totp' ? 4 : 3} />
        {message && <Banner kind={message.kind}>{message.text}</Banner>}
        {body}
      </section>
    </main>
  );
}
