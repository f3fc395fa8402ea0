import { useId, useState, type FormEvent } from 'react';
import { RETENTION_DAYS } from '@shared/contracts/conversations';
import type { GlobalSettings, GlobalSettingsUpdate } from '../api/config-api';
import { CONFIG } from '../strings';

type SaveStatus = { kind: 'saving' } | { kind: 'saved' } | { kind: 'error'; message: string } | null;

/** A card's Save: its status ("Saving...", "Settings saved.", the reason it failed) beside the button. */
function SaveRow({ status, label }: { status: SaveStatus; label: string }) {
  return (
    <div className="config-actions">
      {status?.kind === 'saved' && (
        <span className="config-status" role="status">
          {CONFIG.security.saved}
        </span>
      )}
      {status?.kind === 'error' && (
        <span className="config-status is-error" role="alert">
          {status.message}
        </span>
      )}
      <button type="submit" className="config-button is-primary" disabled={status?.kind === 'saving'}>
        {status?.kind === 'saving' ? CONFIG.security.saving : label}
      </button>
    </div>
  );
}

/** Sends `settings` with `onSave`, keeping the card's status. */
function useSave(onSave: (settings: GlobalSettingsUpdate) => Promise<unknown>) {
  const [status, setStatus] = useState<SaveStatus>(null);
  const save = async (settings: GlobalSettingsUpdate) => {
    setStatus({ kind: 'saving' });
    try {
      await onSave(settings);
      setStatus({ kind: 'saved' });
    } catch (e) {
      console.error('Global settings save failed', e);
      setStatus({ kind: 'error', message: CONFIG.security.failed(e instanceof Error ? e.message : String(e)) });
    }
  };
  return { status, save };
}

/**
 * 'Global Settings' (response temperature, max response length, default language) and
 * 'Security & System Settings' (vertical switches, analytics, debug mode, how long visitors'
 * conversations are kept): two cards, each a form with its own Save that sends only its own
 * fields to PUT /api/config/global, where they take effect on every server.
 */
export function SettingsForm(props: { settings: GlobalSettings; onSave(settings: GlobalSettingsUpdate): Promise<unknown> }) {
  return (
    <>
      <GlobalSettingsCard settings={props.settings} onSave={props.onSave} />
      <SecuritySettingsCard settings={props.settings} onSave={props.onSave} />
    </>
  );
}

function GlobalSettingsCard(props: { settings: GlobalSettings; onSave(settings: GlobalSettingsUpdate): Promise<unknown> }) {
  // The number fields as typed; empty falls back to the static defaults (0.7 and 500) on save.
  const [temperature, setTemperature] = useState(String(props.settings.responseTemperature));
  const [maxLength, setMaxLength] = useState(String(props.settings.maxResponseLength));
  const [language, setLanguage] = useState(props.settings.defaultLanguage);
  const { status, save } = useSave(props.onSave);
  const ids = useId();
  const field = (name: string) => `${ids}-${name}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save({
      responseTemperature: temperature.trim() === '' ? 0.7 : Number(temperature),
      maxResponseLength: maxLength.trim() === '' ? 500 : Number(maxLength),
      defaultLanguage: language as GlobalSettingsUpdate['defaultLanguage'],
    });
  };

  return (
    <form className="config-settings" onSubmit={submit} noValidate>
      <section className="config-card" aria-labelledby={field('global')}>
        <h3 id={field('global')}>{CONFIG.global.title}</h3>
        <div className="config-row is-three">
          <div className="config-field">
            <label htmlFor={field('temperature')}>{CONFIG.global.temperature}</label>
            <input
              id={field('temperature')}
              type="number"
              min={0}
              max={1}
              step={0.1}
              value={temperature}
              onChange={(e) => setTemperature(e.target.value)}
            />
          </div>
          <div className="config-field">
            <label htmlFor={field('maxLength')}>{CONFIG.global.maxLength}</label>
            <input
              id={field('maxLength')}
              type="number"
              min={1}
              step={1}
              value={maxLength}
              onChange={(e) => setMaxLength(e.target.value)}
            />
          </div>
          <div className="config-field">
            <label htmlFor={field('language')}>{CONFIG.global.language}</label>
            <select id={field('language')} value={language} onChange={(e) => setLanguage(e.target.value)}>
              {CONFIG.global.languages.map((l) => (
                <option key={l.code} value={l.code}>
                  {l.name}
                </option>
              ))}
            </select>
          </div>
        </div>
        <SaveRow status={status} label={CONFIG.global.save} />
      </section>
    </form>
  );
}

function SecuritySettingsCard(props: { settings: GlobalSettings; onSave(settings: GlobalSettingsUpdate): Promise<unknown> }) {
  const [verticals, setVerticals] = useState(props.settings.verticals);
  const [enableAnalytics, setEnableAnalytics] = useState(props.settings.enableAnalytics);
  const [debugMode, setDebugMode] = useState(props.settings.debugMode);
  const [retention, setRetention] = useState(String(props.settings.conversationRetentionDays));
  const { status, save } = useSave(props.onSave);
  const ids = useId();
  const field = (name: string) => `${ids}-${name}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save({
      verticals,
      enableAnalytics,
      debugMode,
      conversationRetentionDays: retention.trim() === '' ? RETENTION_DAYS.default : Number(retention),
    });
  };

  const toggle = (label: string, checked: boolean, onChange: (on: boolean) => void, name: string) => (
    <div className="config-switch" key={name}>
      <input id={field(name)} type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={field(name)}>{label}</label>
    </div>
  );

  return (
    <form className="config-settings" onSubmit={submit} noValidate>
      <section className="config-card" aria-labelledby={field('security')}>
        <h3 id={field('security')}>{CONFIG.security.title}</h3>
        <div className="config-row">
          <div className="config-field">
            <label htmlFor={field('retention')}>{CONFIG.security.retention}</label>
            <input
              id={field('retention')}
              type="number"
              min={RETENTION_DAYS.min}
              max={RETENTION_DAYS.max}
              step={1}
              value={retention}
              aria-describedby={field('retention-hint')}
              onChange={(e) => setRetention(e.target.value)}
            />
            <p id={field('retention-hint')} className="config-hint">
              {CONFIG.security.retentionHint}
            </p>
          </div>
        </div>
        <div className="config-switches">
          {CONFIG.security.verticalToggles.map((t) =>
            toggle(t.label, verticals[t.id] !== false, (on) => setVerticals({ ...verticals, [t.id]: on }), t.id),
          )}
          {toggle(CONFIG.security.analytics, enableAnalytics, setEnableAnalytics, 'analytics')}
          {toggle(CONFIG.security.debug, debugMode, setDebugMode, 'debug')}
        </div>
        <SaveRow status={status} label={CONFIG.security.save} />
      </section>
    </form>
  );
}
