import { useMutation, useQuery } from '@tanstack/react-query';
import { Check, Copy, LoaderCircle } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { TotpCodeSchema, type RecoveryCodes } from '@shared/contracts/auth';
import { check } from '@shared/contracts/rules';
import { copyText } from '../../../lib/clipboard';
import { securityApi, serverMessage } from '../api/auth-api';
import { TOTP_SETUP } from '../strings';
import { Banner } from './Banner';
import { CodeInput } from './CodeInput';

/** The key as apps print it: groups of four. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

/**
 * Adding an authenticator app: a new secret from the server as a QR code and as text, then the
 * code the app shows, which turns the second factor on. `onConfirmed` gets the recovery codes.
 */
export function TotpSetup({ onConfirmed }: { onConfirmed(result: RecoveryCodes): void }) {
  const ids = useId();
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [copied, setCopied] = useState(false);
  // A query, not an effect: the one secret is asked for once however often the component mounts.
  const enrolment = useQuery({ queryKey: ['auth', 'totp-enrolment'], queryFn: () => securityApi.enrol(), staleTime: Infinity, gcTime: 0, retry: false, refetchOnWindowFocus: false });
  const confirm = useMutation({
    mutationFn: (value: string) => securityApi.confirm(value),
    onSuccess: onConfirmed,
    onError: (failure) => {
      setError(serverMessage(failure) ?? TOTP_SETUP.confirmFailed);
      setCode('');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = check(TotpCodeSchema, { code });
    if (!result.ok) {
      setError(result.problem.message);
      return;
    }
    setError('');
    confirm.mutate(code);
  };

  if (enrolment.isPending) {
    return (
      <p className="totp-text" role="status">
        <LoaderCircle className="login-spin" size={16} aria-hidden="true" /> {TOTP_SETUP.loading}
      </p>
    );
  }
  if (enrolment.isError) {
    return (
      <div className="totp-setup">
        <Banner kind="error">{serverMessage(enrolment.error) ?? TOTP_SETUP.loadFailed}</Banner>
        <button type="button" className="totp-button" onClick={() => void enrolment.refetch()}>
          {TOTP_SETUP.retry}
        </button>
      </div>
    );
  }
  const { secret, qrSvg, account } = enrolment.data;
  return (
    <form className="totp-setup" onSubmit={submit} noValidate>
      <p className="totp-text">{TOTP_SETUP.scan}</p>
      <img className="totp-qr" src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(qrSvg)}`} alt={TOTP_SETUP.qrAlt(account)} width={184} height={184} />
      <p className="totp-text">{TOTP_SETUP.manual}</p>
      <div className="totp-secret">
        <code aria-label={TOTP_SETUP.manual}>{grouped(secret)}</code>
        <button type="button" className="totp-button" onClick={() => void copyText(secret).then(setCopied)}>
          {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
          {copied ? TOTP_SETUP.copied : TOTP_SETUP.copyKey}
        </button>
      </div>
      <label className="login-label" htmlFor={`${ids}-code`}>
        {TOTP_SETUP.enterCode}
      </label>
      <CodeInput id={`${ids}-code`} aria-label={TOTP_SETUP.codeLabel} value={code} onChange={setCode} disabled={confirm.isPending} />
      {error && <Banner kind="error">{error}</Banner>}
      <button type="submit" className="login-primary" disabled={code.length !== 6 || confirm.isPending}>
        {confirm.isPending ? (
          <>
            <LoaderCircle className="login-spin" size={18} aria-hidden="true" />
            {TOTP_SETUP.turningOn}
          </>
        ) : (
          TOTP_SETUP.turnOn
        )}
      </button>
    </form>
  );
}
