import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Check, Copy, Plus, RefreshCw, Trash2 } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { LANGUAGES } from '@shared/catalog/languages';
import { ENABLED_VERTICAL_IDS, getVertical } from '@shared/catalog/verticals';
import { check } from '@shared/contracts/rules';
import { WIDGET_POSITIONS, WidgetSettingsSchema, type Widget, type WidgetSettingsInput } from '@shared/contracts/widgets';
import { ApiError } from '../../../lib/api';
import { copyText } from '../../../lib/clipboard';
import { WIDGETS } from './strings';
import { widgetsApi } from './widgets-api';
import './widgets.css';

const LIST_QUERY = ['widgets'] as const;

const BLANK: WidgetSettingsInput = {
  name: '',
  allowedOrigins: [],
  verticals: ['customer-service'],
  defaultVertical: 'customer-service',
  greeting: 'Hi! How can we help?',
  color: '#1e3a8a',
  textColor: '#ffffff',
  position: 'bottom-right',
  defaultLanguage: 'en',
  launcherLabel: 'Chat with us',
  requireIdentity: false,
  messagesPerMinute: null,
};

function settingsOf(widget: Widget): WidgetSettingsInput {
  const { id: _id, secretRotatedAt: _r, createdAt: _c, updatedAt: _u, ...settings } = widget;
  return settings as WidgetSettingsInput;
}

export function snippetOf(widgetId: string): string {
  return `<script src="${location.origin}/widget.js" data-widget="${widgetId}" async></script>`;
}

/** The Widgets tab: every widget, its settings form, the snippet to copy, its identity secret and a live preview. */
export function WidgetsTab() {
  const client = useQueryClient();
  const list = useQuery({ queryKey: LIST_QUERY, queryFn: ({ signal }) => widgetsApi.list(signal) });
  const [selected, setSelected] = useState<string | 'new' | null>(null);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const widgets = list.data ?? [];
  const current = selected === 'new' ? null : (widgets.find((w) => w.id === selected) ?? widgets[0] ?? null);
  const editing = selected === 'new' || (current === null && !list.isLoading);

  const refresh = () => client.invalidateQueries({ queryKey: LIST_QUERY });

  return (
    <section className="widgets-tab" aria-labelledby="widgets-title">
      <div className="widgets-head">
        <div>
          <h2 id="widgets-title">{WIDGETS.title}</h2>
          <p>{WIDGETS.intro}</p>
        </div>
        <button type="button" className="widgets-button is-primary" onClick={() => setSelected('new')}>
          <Plus aria-hidden="true" size={16} /> {WIDGETS.add}
        </button>
      </div>
      <div className="widgets-layout">
        <nav className="widgets-list" aria-label={WIDGETS.title}>
          {widgets.length === 0 && !list.isLoading && <p className="widgets-empty">{WIDGETS.empty}</p>}
          <ul>
            {widgets.map((w) => (
              <li key={w.id}>
                <button type="button" className={current?.id === w.id && !editing ? 'is-current' : ''} aria-current={current?.id === w.id && !editing ? 'true' : undefined} onClick={() => setSelected(w.id)}>
                  <span className="widgets-swatch" style={{ background: w.color }} aria-hidden="true" />
                  <span>{w.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="widgets-detail">
          {editing ? (
            <WidgetForm
              key="new"
              initial={BLANK}
              submitLabel={WIDGETS.create}
              onSave={async (input) => {
                const made = await widgetsApi.create(input);
                setSecret({ id: made.widget.id, secret: made.secret });
                await refresh();
                setSelected(made.widget.id);
              }}
            />
          ) : current ? (
            <>
              <SnippetBox widget={current} />
              {secret?.id === current.id && <SecretBox secret={secret.secret} />}
              <WidgetForm
                key={current.id}
                initial={settingsOf(current)}
                submitLabel={WIDGETS.save}
                onSave={async (input) => {
                  await widgetsApi.update(current.id, input);
                  await refresh();
                }}
              />
              <div className="widgets-actions">
                <span className="widgets-muted">{WIDGETS.secretRotatedAt(new Date(current.secretRotatedAt).toLocaleString())}</span>
                <button
                  type="button"
                  className="widgets-button"
                  onClick={async () => {
                    if (!window.confirm(WIDGETS.confirmRotate)) return;
                    const rotated = await widgetsApi.rotate(current.id);
                    setSecret({ id: current.id, secret: rotated.secret });
                    await refresh();
                  }}
                >
                  <RefreshCw aria-hidden="true" size={16} /> {WIDGETS.rotate}
                </button>
                <button
                  type="button"
                  className="widgets-button is-danger"
                  onClick={async () => {
                    if (!window.confirm(WIDGETS.confirmRemove(current.name))) return;
                    await widgetsApi.remove(current.id);
                    setSelected(null);
                    await refresh();
                  }}
                >
                  <Trash2 aria-hidden="true" size={16} /> {WIDGETS.remove}
                </button>
              </div>
              <Preview widget={current} />
            </>
          ) : null}
        </div>
      </div>
    </section>
  );
}

function SnippetBox({ widget }: { widget: Widget }) {
  const [copied, setCopied] = useState(false);
  const snippet = snippetOf(widget.id);
  return (
    <div className="widgets-snippet">
      <h3>{WIDGETS.snippet}</h3>
      <p className="widgets-muted">{WIDGETS.snippetHint}</p>
      <pre>
        <code>{snippet}</code>
      </pre>
      <button
        type="button"
        className="widgets-button"
        onClick={async () => {
          await copyText(snippet);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        }}
      >
        {copied ? <Check aria-hidden="true" size={16} /> : <Copy aria-hidden="true" size={16} />} {copied ? WIDGETS.copied : WIDGETS.copy}
      </button>
    </div>
  );
}

function SecretBox({ secret }: { secret: string }) {
  return (
    <div className="widgets-secret" role="status">
      <h3>{WIDGETS.secret}</h3>
      <code>{secret}</code>
      <p>{WIDGETS.secretOnce}</p>
    </div>
  );
}

/** The chat as visitors will see it (the iframe page allows the assistant's own origin to frame it). */
function Preview({ widget }: { widget: Widget }) {
  const [version, setVersion] = useState(0);
  useEffect(() => setVersion((v) => v + 1), [widget.updatedAt]);
  return (
    <div className="widgets-preview">
      <h3>{WIDGETS.preview}</h3>
      <div className="widgets-preview-stage">
        <iframe key={version} title={`${WIDGETS.preview}: ${widget.name}`} src={`/widget/${encodeURIComponent(widget.id)}`} />
        <span className="widgets-preview-launcher" style={{ background: widget.color, color: widget.textColor, [widget.position === 'bottom-left' ? 'left' : 'right']: 12 }}>
          {widget.launcherLabel}
        </span>
      </div>
    </div>
  );
}

function WidgetForm({ initial, submitLabel, onSave }: { initial: WidgetSettingsInput; submitLabel: string; onSave(input: WidgetSettingsInput): Promise<void> }) {
  const ids = useId();
  const [form, setForm] = useState(initial);
  const [origins, setOrigins] = useState(initial.allowedOrigins.join('\n'));
  const [rate, setRate] = useState(initial.messagesPerMinute ? String(initial.messagesPerMinute) : '');
  const [problem, setProblem] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useMutation({ mutationFn: onSave });
  const set = <K extends keyof WidgetSettingsInput>(key: K, value: WidgetSettingsInput[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setProblem('');
    setSaved(false);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input: WidgetSettingsInput = {
      ...form,
      allowedOrigins: origins.split(/\s+/).filter(Boolean),
      messagesPerMinute: rate.trim() === '' ? null : Number(rate),
    };
    const result = check(WidgetSettingsSchema, input);
    if (!result.ok) return setProblem(result.problem.message);
    save.mutate(input, {
      onSuccess: () => setSaved(true),
      onError: (error) => setProblem(error instanceof ApiError ? error.message : String(error)),
    });
  };
  const toggleVertical = (id: string, on: boolean) => {
    const verticals = on ? ENABLED_VERTICAL_IDS.filter((v) => v === id || form.verticals.includes(v)) : form.verticals.filter((v) => v !== id);
    set('verticals', verticals);
    if (!verticals.includes(form.defaultVertical as never) && verticals[0]) set('defaultVertical', verticals[0]);
  };

  return (
    <form className="widgets-form" onSubmit={submit} noValidate>
      <label>
        <span>{WIDGETS.name}</span>
        <input value={form.name} onChange={(e) => set('name', e.target.value)} maxLength={100} />
      </label>
      <label>
        <span>{WIDGETS.origins}</span>
        <textarea rows={3} value={origins} onChange={(e) => (setOrigins(e.target.value), setProblem(''))} aria-describedby={`${ids}-origins`} placeholder="https://www.example.com" />
        <small id={`${ids}-origins`}>{WIDGETS.originsHint}</small>
      </label>
      <fieldset>
        <legend>{WIDGETS.verticals}</legend>
        {ENABLED_VERTICAL_IDS.map((id) => (
          <label key={id} className="widgets-check">
            <input type="checkbox" checked={form.verticals.includes(id)} onChange={(e) => toggleVertical(id, e.target.checked)} />
            <span>{getVertical(id)?.name}</span>
          </label>
        ))}
      </fieldset>
      <div className="widgets-row">
        <label>
          <span>{WIDGETS.defaultVertical}</span>
          <select value={form.defaultVertical} onChange={(e) => set('defaultVertical', e.target.value as WidgetSettingsInput['defaultVertical'])}>
            {form.verticals.map((id) => (
              <option key={id} value={id}>
                {getVertical(id)?.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>{WIDGETS.language}</span>
          <select value={form.defaultLanguage} onChange={(e) => set('defaultLanguage', e.target.value)}>
            {LANGUAGES.map((l) => (
              <option key={l.code} value={l.code}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label>
        <span>{WIDGETS.greeting}</span>
        <input value={form.greeting ?? ''} onChange={(e) => set('greeting', e.target.value)} maxLength={500} />
      </label>
      <div className="widgets-row">
        <label>
          <span>{WIDGETS.label}</span>
          <input value={form.launcherLabel} onChange={(e) => set('launcherLabel', e.target.value)} maxLength={40} />
        </label>
        <label>
          <span>{WIDGETS.position}</span>
          <select value={form.position} onChange={(e) => set('position', e.target.value as WidgetSettingsInput['position'])}>
            {WIDGET_POSITIONS.map((p) => (
              <option key={p} value={p}>
                {WIDGETS.positions[p]}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>{WIDGETS.color}</span>
          <input type="color" value={form.color} onChange={(e) => set('color', e.target.value)} />
        </label>
        <label>
          <span>{WIDGETS.textColor}</span>
          <input type="color" value={form.textColor} onChange={(e) => set('textColor', e.target.value)} />
        </label>
      </div>
      <label>
        <span>{WIDGETS.rate}</span>
        <input inputMode="numeric" value={rate} onChange={(e) => (setRate(e.target.value), setProblem(''))} />
      </label>
      <label className="widgets-check">
        <input type="checkbox" checked={form.requireIdentity} onChange={(e) => set('requireIdentity', e.target.checked)} />
        <span>{WIDGETS.requireIdentity}</span>
      </label>
      {problem && (
        <p className="widgets-problem" role="alert">
          {problem}
        </p>
      )}
      {saved && !problem && (
        <p className="widgets-saved" role="status">
          {WIDGETS.saved}
        </p>
      )}
      <button type="submit" className="widgets-button is-primary" disabled={save.isPending}>
        {submitLabel}
      </button>
    </form>
  );
}
