import type { FeedbackVote } from '@shared/contracts/analytics';
import type { HandoffInfo } from '@shared/contracts/handoff';
import { useCallback, useEffect, useRef, useState, type CSSProperties } from 'react';
import { RefreshCw, X } from 'lucide-react';
import { getJurisdiction } from '@shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, type Language } from '@shared/catalog/languages';
import { surelyWrittenIn } from '@shared/language-detection';
import { getVertical, VERTICALS, type Vertical, type VerticalId } from '@shared/catalog/verticals';
import type { ReplySource } from '@shared/contracts/chat';
import type { VisitorConversation } from '@shared/contracts/conversations';
import { NoticeBox } from '../../components/Notices';
import type { ChatMessage } from '../../lib/reply-stream';
import type { ChatConnectionOptions, ConnectionStatus } from './api/chat-connection';
import { type JurisdictionChoice } from './api/chat-payload';
import { ConversationActions } from './components/ConversationActions';
import { ChatFooter } from './components/ChatFooter';
import { requestHandoff } from './api/conversations-api';
import { ChatHeader, ConnectionPill } from './components/ChatHeader';
import { Composer } from './components/Composer';
import { HandoffPanel, type HandoffView } from './components/HandoffPanel';
import { JurisdictionBar, LegalNotice } from './components/JurisdictionBar';
import { JurisdictionModal } from './components/JurisdictionModal';
import { LanguageSelect } from './components/LanguageSelect';
import { MessageList } from './components/MessageList';
import { RateLimitNotice } from './components/RateLimitNotice';
import { SourcePanel } from './components/SourcePanel';
import { VerticalIcon } from './components/VerticalIcon';
import { VerticalTabs } from './components/VerticalTabs';
import { useChatConnection, useShownStatus } from './hooks/useChatConnection';
import { scopeKeyOf, useConversations } from './hooks/useConversations';
import { usePublicSettings } from './hooks/usePublicSettings';
import { voiceErrorMessage } from './hooks/useSpeechRecognition';
import { useVoiceInput } from './hooks/useVoiceInput';
import { StringsProvider, stringsFor, useDictionary, type ChatStrings } from './i18n';
import { readPreferences, savePreferences } from './state/preferences';
import './chat.css';

const PANEL_ID = 'chat-panel';
const FIRST_VERTICAL: VerticalId = 'customer-service';
const WELCOME_PREFIX = 'welcome-';
const JURISDICTION_PREFIX = 'jurisdiction-';

function verticalOf(id: VerticalId): Vertical {
  return getVertical(id) as Vertical;
}

function welcomeOf(id: VerticalId): ChatMessage[] {
  return [{ id: `${WELCOME_PREFIX}${id}`, type: 'agent', content: verticalOf(id).welcomeMessage, timestamp: new Date().toISOString() }];
}

/** The place a jurisdiction choice names, in the visitor's language ("California, United States"). */
function placeOf(t: ChatStrings, choice: JurisdictionChoice): string {
  const name = t.legal.jurisdictions[choice.code].name;
  return choice.subRegion ? `${choice.subRegion}, ${name}` : name;
}

function jurisdictionWelcomeText(t: ChatStrings, choice: JurisdictionChoice): string {
  return t.legal.welcome(placeOf(t, choice), t.legal.legalSystems[getJurisdiction(choice.code)!.legalSystem]);
}

function jurisdictionWelcome(choice: JurisdictionChoice): ChatMessage {
  return {
    id: `${JURISDICTION_PREFIX}${choice.code}${choice.subRegion ? `-${choice.subRegion}` : ''}`,
    type: 'agent',
    content: jurisdictionWelcomeText(stringsFor('en'), choice),
    timestamp: new Date().toISOString(),
  };
}

/** A known jurisdiction choice (from storage or the server), or null. */
function jurisdictionChoice(code: string | null | undefined, subRegion?: string | null): JurisdictionChoice | null {
  const jurisdiction = code ? getJurisdiction(code) : undefined;
  if (!jurisdiction) return null;
  const sub = subRegion ? jurisdiction.subRegions.find((r) => r === subRegion) : undefined;
  return { code: jurisdiction.code, ...(sub ? { subRegion: sub } : {}) };
}

/** What a conversation starts with: the vertical's welcome, and for legal the jurisdiction's. */
function welcomeOfScope(scope: string): ChatMessage[] {
  const [vertical, place] = scope.split(':') as [VerticalId, string | undefined];
  const messages = welcomeOf(vertical);
  if (place) {
    const [code, subRegion] = place.split('/');
    const choice = jurisdictionChoice(code, subRegion);
    if (choice) messages.push(jurisdictionWelcome(choice));
  }
  return messages;
}

/** The page's own welcome messages in the visitor's language (they are kept in English in the state). */
export function localizeWelcomes(messages: ChatMessage[], t: ChatStrings): ChatMessage[] {
  // A conversation with a jurisdiction's welcome has its jurisdiction: the vertical's welcome no
  // longer asks to choose one.
  const chosen = messages.some((m) => m.id.startsWith(JURISDICTION_PREFIX));
  return messages.map((message) => {
    if (message.id.startsWith(WELCOME_PREFIX)) {
      const vertical = message.id.slice(WELCOME_PREFIX.length) as VerticalId;
      const texts = t.verticals[vertical];
      if (!texts) return message;
      return { ...message, content: chosen && getVertical(vertical)?.requiresJurisdiction ? t.legal.welcomeChosen : texts.welcome };
    }
    if (message.id.startsWith(JURISDICTION_PREFIX)) {
      const rest = message.id.slice(JURISDICTION_PREFIX.length);
      const choice = jurisdictionChoice(rest.slice(0, 2), rest.slice(3) || undefined);
      return choice ? { ...message, content: jurisdictionWelcomeText(t, choice) } : message;
    }
    return message;
  });
}

function scopeOfConversation(conversation: VisitorConversation): string {
  return scopeKeyOf(conversation.vertical, jurisdictionChoice(conversation.jurisdiction, conversation.subJurisdiction));
}

/** Final voice text joins what is already typed with a space. */
export function appendSpoken(current: string, spoken: string): string {
  return current.trim() === '' ? spoken : `${current.replace(/\s+$/, '')} ${spoken}`;
}

/**
 * Sets `lang` and `dir` of the document from the chosen language (back to English when the page
 * goes).
 */
function useDocumentLanguage(language: Language): void {
  useEffect(() => {
    const root = document.documentElement;
    root.lang = language.code;
    root.dir = language.rtl ? 'rtl' : 'ltr';
  }, [language]);
  useEffect(() => {
    return () => {
      document.documentElement.lang = DEFAULT_LANGUAGE.code;
      document.documentElement.dir = 'ltr';
    };
  }, []);
}

/** The chat inside an embedded widget: the verticals its settings allow, its greeting, a close button. */
export interface WidgetMode {
  verticals: readonly VerticalId[];
  defaultVertical: VerticalId;
  defaultLanguage: string;
  greeting: string;
  title: string;
  onClose(): void;
  /** A message the visitor sent or a reply that arrived (for the host page's `message` event). */
  onActivity?(role: 'visitor' | 'assistant', text: string): void;
}

export interface ChatPageProps extends ChatConnectionOptions {
  /** Client-side reply time-out (ms); 130000 by default. */
  requestTimeoutMs?: number;
  /** Rendered inside a widget's iframe (no page header or footer). */
  widget?: WidgetMode;
}

/** The public chat page ("/"). */
export default function ChatPage({ requestTimeoutMs, widget, ...connectionOptions }: ChatPageProps) {
  const { connection, status } = useChatConnection(connectionOptions);
  const shownStatus = useShownStatus(status);
  // The tab, language and jurisdiction the visitor left the page with (this browser remembers them).
  const [remembered] = useState(readPreferences);
  const [verticalId, setVerticalId] = useState<VerticalId>(() =>
    remembered.vertical && getVertical(remembered.vertical)?.enabled && (!widget || widget.verticals.includes(remembered.vertical))
      ? remembered.vertical
      : (widget?.defaultVertical ?? FIRST_VERTICAL),
  );
  const [language, setLanguage] = useState<Language>(
    () => (remembered.language && getLanguageByCode(remembered.language)) || (widget && getLanguageByCode(widget.defaultLanguage)) || DEFAULT_LANGUAGE,
  );
  const [jurisdiction, setJurisdiction] = useState<JurisdictionChoice | null>(() => jurisdictionChoice(remembered.jurisdiction?.code, remembered.jurisdiction?.subRegion));
  const [modalOpen, setModalOpen] = useState(false);
  const [openSource, setOpenSource] = useState<ReplySource | null>(null);
  const [input, setInput] = useState('');
  /** The visitor pressed Send while offline: the text in the box goes out when the connection is back. */
  const [queued, setQueued] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** A rate limit refused a message: sending waits until then (epoch ms). */
  const [limitedUntil, setLimitedUntil] = useState<number | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [fetchImpl] = useState<typeof fetch>(() => connectionOptions.fetch ?? ((...args) => fetch(...args)));
  const settings = usePublicSettings(connectionOptions.fetch, connection);
  // The language the visitor picked in the list stays; one the page followed from what they wrote
  // (see send) keeps the administrators' default away but moves with their next question.
  const rememberedLanguage = Boolean(remembered.language && getLanguageByCode(remembered.language));
  const languageTouched = useRef(rememberedLanguage && !remembered.languageDetected);
  const languageDetected = useRef(rememberedLanguage && Boolean(remembered.languageDetected));
  const t = useDictionary(language.code);
  // A vertical is usable when the catalogue enables it and the administrators have not switched it off.
  const isEnabled = (id: VerticalId) =>
    Boolean(getVertical(id)?.enabled) && settings?.verticals.find((v) => v.id === id)?.enabled !== false && (!widget || widget.verticals.includes(id));
  /** Handoffs under way that the stored conversations brought, by scope (until a live event says more). */
  const [storedHandoffs, setStoredHandoffs] = useState<Record<string, HandoffInfo>>({});
  const conversations = useConversations({
    connection,
    fetch: fetchImpl,
    timeoutMs: requestTimeoutMs,
    welcome: welcomeOfScope,
    scopeOf: scopeOfConversation,
    // A person asked for before a reload: the panel shows it again (waiting or taken).
    onStored: (conversation, storedScope) => {
      if (conversation.handoff.state === 'waiting' || conversation.handoff.state === 'open') {
        setStoredHandoffs((current) => ({ ...current, [storedScope]: conversation.handoff }));
      }
    },
    // The refused question goes back into the composer (unless the visitor typed something new).
    onLimited: ({ query, retryAfter }) => {
      setInput((current) => (current.trim() === '' ? query : current));
      setLimitedUntil(Date.now() + retryAfter * 1000);
    },
  });
  const limitElapsed = useCallback(() => setLimitedUntil(null), []);
  const voice = useVoiceInput({
    locale: language.speechLocale,
    language: language.code,
    fetch: fetchImpl,
    onFinal: (text) => setInput((current) => appendSpoken(current, text)),
    onError: (code) => setNotice(voiceErrorMessage(code, t.voice)),
  });
  const vertical = verticalOf(verticalId);
  const online = status === 'online';
  const scope = scopeKeyOf(verticalId, jurisdiction);
  const messages = localizeWelcomes(conversations.messagesOf(scope), t);
  const pending = conversations.pendingIn(scope);
  useDocumentLanguage(language);
  useReplyActivity(messages, pending, widget?.onActivity);

  // A person takes over: the request's answer, then live events (a reply, typing, taken, resolved).
  // Each by scope: the events name their conversation, which may not be the one in view (another
  // tab of the page, or another tab of the browser), and they stay with it.
  const [handoffs, setHandoffs] = useState<Record<string, HandoffView>>({});
  const handoff = handoffs[scope] ?? null;
  const [handoffBusy, setHandoffBusy] = useState(false);
  const [handoffFailed, setHandoffFailed] = useState(false);
  const [humanTyping, setHumanTyping] = useState<{ conversationId: string; name: string } | null>(null);
  const scopeRef = useRef(scope);
  scopeRef.current = scope;
  const tRef = useRef(t);
  tRef.current = t;
  useEffect(
    () =>
      connection.onHandoff((event) => {
        const stopTyping = () => setHumanTyping((current) => (current?.conversationId === event.conversationId ? null : current));
        if (event.kind === 'human') {
          const m = event.message;
          stopTyping();
          void conversations.deliver(event.conversationId, { id: m.id, type: 'agent', content: m.content, timestamp: m.createdAt, author: m.author.name }).then((to) => {
            // A reply in a conversation out of view: stored there, and a notice here says where.
            if (to !== undefined && to !== scopeRef.current) {
              const names = tRef.current.verticals[to.split(':')[0] as VerticalId];
              setNotice(tRef.current.handoff.elsewhere(m.author.name, names?.name ?? to));
            }
          });
        } else if (event.kind === 'typing') {
          if (event.typing) setHumanTyping({ conversationId: event.conversationId, name: event.author.name });
          else stopTyping();
        } else {
          const to = conversations.scopeOfConversation(event.conversationId);
          if (event.handoff.state !== 'open') stopTyping();
          if (to === undefined) return;
          setStoredHandoffs(({ [to]: _replaced, ...rest }) => rest);
          setHandoffs((current) => {
            const was = current[to];
            return { ...current, [to]: { message: was?.message ?? '', withinHours: was?.withinHours ?? true, emailSaved: was?.emailSaved ?? false, info: event.handoff } };
          });
        }
      }),
    // conversations.append keeps its identity; the listener is set once for the page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [connection],
  );
  // Votes given on this page (a reply's saved vote comes with it when the conversation is shown again).
  const [votes, setVotes] = useState<Record<string, FeedbackVote | null>>({});
  const lastReply = [...messages].reverse().find((m) => m.type === 'agent' && m.metadata);
  const lastVote = lastReply?.metadata?.replyId !== undefined && lastReply.metadata.replyId in votes ? votes[lastReply.metadata.replyId] : lastReply?.vote;
  const offerPerson = lastReply !== undefined && (lastReply.metadata?.answered === false || lastVote === 'down' || lastReply.metadata?.handoff === 'waiting');
  const askPerson = async (extra: { email?: string; message?: string } = {}) => {
    setHandoffBusy(true);
    const asked = scope;
    try {
      // The 'future' tab is never selectable, so the vertical is one the server takes.
      const result = await requestHandoff(fetchImpl, { vertical: verticalId as Exclude<VerticalId, 'future'>, jurisdiction, language: language.code, ...extra });
      conversations.remember(asked, result.conversationId);
      setHandoffs((current) => ({ ...current, [asked]: { info: result.handoff, message: result.message, withinHours: result.withinHours, emailSaved: Boolean(extra.email) } }));
      setHandoffFailed(false);
    } catch {
      setHandoffFailed(true);
    } finally {
      setHandoffBusy(false);
    }
  };

  useEffect(() => {
    if (!settings) return;
    // A widget starts in its own default language, the chat page in the administrators' one.
    const initial = getLanguageByCode(widget?.defaultLanguage ?? settings.defaultLanguage);
    if (initial && !languageTouched.current && !languageDetected.current) setLanguage(initial);
    if (!isEnabled(verticalId)) {
      // Switched off while the visitor was here (or before they came back): say so, and move on.
      const first = VERTICALS.find((v) => isEnabled(v.id));
      if (first) {
        setNotice(t.chat.verticalOff(t.verticals[verticalId].name));
        setVerticalId(first.id);
        setQueued(false);
      }
    }
    // Runs when the settings arrive or change; the vertical check uses the state of that moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settings]);

  // A legal tab the page opens on without a jurisdiction asks for one, as a tab switch does.
  useEffect(() => {
    if (vertical.requiresJurisdiction && !jurisdiction) setModalOpen(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const focusInput = () => requestAnimationFrame(() => inputRef.current?.focus());

  const selectVertical = (id: VerticalId) => {
    if (id === verticalId || !isEnabled(id)) return;
    const next = verticalOf(id);
    setVerticalId(id);
    setQueued(false);
    setHandoffFailed(false);
    savePreferences({ vertical: id });
    if (next.requiresJurisdiction && !jurisdiction) setModalOpen(true);
  };

  const chooseJurisdiction = (choice: JurisdictionChoice) => {
    setJurisdiction(choice);
    savePreferences({ jurisdiction: choice });
    setModalOpen(false);
  };

  const send = () => {
    const query = input.trim();
    if (query === '' || pending || voice.listening || voice.transcribing || limitedUntil !== null) return;
    if (vertical.requiresJurisdiction && !jurisdiction) {
      setModalOpen(true);
      return;
    }
    if (!online) {
      // Kept in the box and sent as soon as the connection is back (see the effect below).
      setQueued(true);
      return;
    }
    setQueued(false);
    // Until the visitor picks a language, a question surely written in another offered one is
    // answered in it, and the page follows ("¿Cuántos días de vacaciones tengo?" on an English
    // page); a question that is not sure ("Can I bring a guest?", whose "I" and "a" are also
    // Italian words) changes nothing.
    let replyLanguage = language;
    if (!languageTouched.current) {
      const written = surelyWrittenIn(query);
      const detected = written && written !== language.code ? getLanguageByCode(written) : undefined;
      if (detected) {
        replyLanguage = detected;
        setLanguage(detected);
        // Remembered, so a reload shows the conversation in its language and a new default set by
        // the administrators does not replace it; but not as a choice: the next question surely
        // written in another language moves it again, so a wrong guess never sticks.
        languageDetected.current = true;
        savePreferences({ language: detected.code, languageDetected: true });
      }
    }
    if (conversations.send(scope, query, { vertical: verticalId, language: replyLanguage, jurisdiction })) {
      widget?.onActivity?.('visitor', query);
      setInput('');
      focusInput();
    }
  };

  // The connection is back: the message the visitor sent meanwhile goes out.
  const sendRef = useRef(send);
  sendRef.current = send;
  useEffect(() => {
    if (online && queued && !pending) sendRef.current();
  }, [online, queued, pending]);

  /** "Ask in Employee Support": switch to that tab and ask the same question there. */
  const askIn = (id: VerticalId, question: string) => {
    if (id === verticalId || !isEnabled(id) || !online) return;
    const next = verticalOf(id);
    setVerticalId(id);
    savePreferences({ vertical: id });
    if (next.requiresJurisdiction && !jurisdiction) {
      // The question waits in the composer until a jurisdiction is chosen.
      setInput(question);
      setModalOpen(true);
      return;
    }
    conversations.send(scopeKeyOf(id, jurisdiction), question, { vertical: id, language, jurisdiction });
    focusInput();
  };

  const retry = () => {
    if (!online) return;
    conversations.retry(scope, { vertical: verticalId, language, jurisdiction });
  };

  const stop = useCallback(() => {
    conversations.stop(scope);
    focusInput();
  }, [conversations, scope]);

  const newChat = () => {
    void conversations.newChat(scope, verticalId, jurisdiction);
    // A new conversation starts with the assistant: the old one's handoff is not shown with it.
    setHandoffs(({ [scope]: _old, ...rest }) => rest);
    setStoredHandoffs(({ [scope]: _stored, ...rest }) => rest);
    setInput('');
    setQueued(false);
    focusInput();
  };

  return (
    <StringsProvider language={language.code}>
      <div className={widget ? 'chat-page is-widget' : 'chat-page'}>
        {widget ? <WidgetHeader widget={widget} status={shownStatus} t={t} /> : <ChatHeader status={shownStatus} />}
        <main className="chat-main">
          {(!widget || widget.verticals.length > 1) && (
            <VerticalTabs selected={verticalId} panelId={PANEL_ID} onSelect={selectVertical} isEnabled={isEnabled} only={widget?.verticals} />
          )}
          <section
            id={PANEL_ID}
            className={vertical.requiresJurisdiction ? 'chat-panel is-legal' : 'chat-panel'}
            role="tabpanel"
            aria-labelledby={`tab-${verticalId}`}
            style={{ '--accent': vertical.color } as CSSProperties}
          >
            <div className="panel-head">
              <div className="panel-title">
                <span className="panel-icon">
                  <VerticalIcon name={vertical.icon} size={22} />
                </span>
                <div>
                  <h2>{t.verticals[verticalId].name}</h2>
                  <p>{t.verticals[verticalId].description}</p>
                </div>
              </div>
              <div className="panel-actions">
                <LanguageSelect
                  value={language}
                  onChange={(next) => {
                    languageTouched.current = true;
                    setLanguage(next);
                    savePreferences({ language: next.code, languageDetected: false });
                  }}
                />
                <ConversationActions
                  canStartOver={messages.some((m) => m.type === 'user')}
                  onNewChat={newChat}
                  onDeleteAll={async () => {
                    await conversations.deleteAll();
                    setHandoffs({});
                    setStoredHandoffs({});
                  }}
                />
              </div>
            </div>
            {vertical.requiresJurisdiction && (
              <div className="legal-strip">
                <JurisdictionBar choice={jurisdiction} onOpen={() => setModalOpen(true)} />
                <LegalNotice choice={jurisdiction} />
              </div>
            )}
            {status === 'offline' && <OfflineBanner t={t} />}
            <MessageList
              messages={messages}
              busy={pending}
              onAskIn={askIn}
              onRetry={online ? retry : undefined}
              onOpenSource={setOpenSource}
              onVote={(replyId, vote) => setVotes((current) => ({ ...current, [replyId]: vote }))}
            />
            {limitedUntil !== null && <RateLimitNotice until={limitedUntil} onElapsed={limitElapsed} />}
            <HandoffPanel
              view={handoff ?? (storedHandoffs[scope] ? { info: storedHandoffs[scope], message: '', withinHours: true, emailSaved: false } : null)}
              offer={offerPerson}
              asking={handoffBusy}
              failed={handoffFailed}
              typing={humanTyping !== null && humanTyping.conversationId === conversations.conversationIdOf(scope) ? humanTyping.name : null}
              onAsk={() => void askPerson()}
              onLeave={(email, message) => void askPerson({ email, message })}
            />
            {/* Inside the panel, over the message box: the conversation gives it room, so the box stays in view. */}
            {notice && <NoticeBox inline tone="warning" text={notice} closeLabel={t.notice.dismiss} onDismiss={() => setNotice(null)} />}
            <Composer
              ref={inputRef}
              value={input}
              onChange={setInput}
              onSend={send}
              onStop={stop}
              status={shownStatus}
              pending={pending}
              waiting={limitedUntil !== null}
              queued={queued}
              onCancelQueued={() => setQueued(false)}
              voice={voice}
              languageName={t.selfName}
            />
          </section>
        </main>
        {!widget && <ChatFooter />}
        <SourcePanel source={openSource} fetch={fetchImpl} onClose={() => setOpenSource(null)} />
        <JurisdictionModal open={modalOpen} current={jurisdiction} onClose={() => setModalOpen(false)} onSelect={chooseJurisdiction} />
      </div>
    </StringsProvider>
  );
}

/** Tells the widget's host page about each reply that finished arriving (once per reply). */
function useReplyActivity(messages: ChatMessage[], pending: boolean, onActivity: WidgetMode['onActivity']): void {
  const told = useRef<string | null>(null);
  const last = messages[messages.length - 1];
  useEffect(() => {
    if (!onActivity || pending) return;
    const reply = last && last.type === 'agent' && !last.id.startsWith(WELCOME_PREFIX) && !last.id.startsWith(JURISDICTION_PREFIX) ? last : undefined;
    if (told.current === null) {
      // What was already there when the widget opened is not news (a greeting alone counts as nothing).
      told.current = reply?.id ?? '';
      return;
    }
    if (!reply || told.current === reply.id) return;
    told.current = last.id;
    onActivity('assistant', last.content);
  }, [last, pending, onActivity]);
}

/** The widget's header: its title and greeting, the connection, and a close button (the only way out on a phone). */
function WidgetHeader({ widget, status, t }: { widget: WidgetMode; status: ConnectionStatus | null; t: ChatStrings }) {
  return (
    <header className="widget-header">
      <div className="widget-header-text">
        <h1 className="widget-title">{widget.title}</h1>
        {widget.greeting && <p className="widget-greeting">{widget.greeting}</p>}
      </div>
      <ConnectionPill status={status} />
      <button type="button" className="widget-close" onClick={widget.onClose} aria-label={t.widget.close} title={t.widget.close}>
        <X aria-hidden="true" size={20} />
      </button>
    </header>
  );
}

/** The connection dropped: the page says so, keeps trying to reconnect, and typing goes on. */
function OfflineBanner({ t }: { t: ChatStrings }) {
  return (
    <div className="offline-banner" role="status">
      <RefreshCw aria-hidden="true" size={18} className="spin" />
      <span>
        <strong>{t.chat.offline}</strong> {t.chat.offlineHint}
      </span>
    </div>
  );
}
