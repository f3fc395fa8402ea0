import { LogOut, ShieldCheck } from 'lucide-react';
import { useId, useState } from 'react';
import type { RecoveryCodes } from '@shared/contracts/auth';
import { useAuth } from '../AuthProvider';
import { TOTP_SETUP } from '../strings';
import { RecoveryCodesPanel } from './RecoveryCodesPanel';
import { TotpSetup } from './TotpSetup';
import '../login.css';
import '../second-factor.css';

/**
 * After sign-in, for a member whose team requires a second factor and who has none: the only
 * screen they get until an authenticator app is set up (the server refuses everything else too).
 * Looks like the login screen; ends with the recovery codes, then the console.
 */
export function EnrolScreen() {
  const auth = useAuth();
  const ids = useId();
  const [confirmed, setConfirmed] = useState<RecoveryCodes | null>(null);

  return (
    <main className="login-page">
      <section className="login-card is-wide" aria-labelledby={`${ids}-title`}>
        <div className="login-badge" aria-hidden="true">
          <ShieldCheck size={28} />
        </div>
        <h1 id={`${ids}-title`} className="login-title">
          {TOTP_SETUP.enrolTitle}
        </h1>
        <p className="login-subtitle">{TOTP_SETUP.enrolSubtitle}</p>
        <div className="totp-body">
          {confirmed ? (
            <RecoveryCodesPanel
              codes={confirmed.recoveryCodes}
              doneLabel={TOTP_SETUP.continueToConsole}
              onDone={() => confirmed.user && auth.completeEnrolment(confirmed.user)}
            />
          ) : (
            <TotpSetup onConfirmed={setConfirmed} />
          )}
        </div>
        <button type="button" className="login-link totp-signout" onClick={() => void auth.logout()}>
          <LogOut size={16} aria-hidden="true" />
          {TOTP_SETUP.signOut}
        </button>
      </section>
    </main>
  );
}
