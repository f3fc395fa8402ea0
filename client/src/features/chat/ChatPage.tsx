import { useCallback, useEffect, useRef, useState, type CSSProperties } from 'react';
import { WifiOff } from 'lucide-react';
import { getJurisdiction } from '@shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, type Language } from '@shared/catalog/languages';
import { getVertical, VERTICALS, type Vertical, type VerticalId } from '@shared/catalog/verticals';
import type { VisitorConversation } from '@shared/contracts/conversations';
import type { ChatMessage } from '../../lib/reply-stream';
import type { ChatConnectionOptions } from './api/chat-connection';
import { jurisdictionPlace, type JurisdictionChoice } from './api/chat-payload';
import { ConversationActions } from './components/ConversationActions';
import { ChatFooter } from './components/ChatFooter';
import { ChatHeader } from './components/ChatHeader';
import { Composer } from './components/Composer';
import { JurisdictionBar, LegalNotice } from './components/JurisdictionBar';
import { JurisdictionModal } from './components/JurisdictionModal';
import { LanguageSelect } from './components/LanguageSelect';
import { MessageList } from './components/MessageList';
import { VerticalIcon } from './components/VerticalIcon';
import { VerticalTabs } from './components/VerticalTabs';
import { useChatConnection } from './hooks/useChatConnection';
import { scopeKeyOf, useConversations } from './hooks/useConversations';
import { usePublicSettings } from './hooks/usePublicSettings';
import { useSpeechRecognition } from './hooks/useSpeechRecognition';
import { readPreferences, savePreferences } from './state/preferences';
import { CHAT, LEGAL } from './strings';
import './chat.css';

const PANEL_ID = 'chat-panel';
const FIRST_VERTICAL: VerticalId = 'customer-service';

function verticalOf(id: VerticalId): Vertical {
  return getVertical(id) as Vertical;
}

function welcomeOf(id: VerticalId): ChatMessage[] {
  return [{ id: `welcome-${id}`, type: 'agent', content: verticalOf(id).welcomeMessage, timestamp: new Date().toISOString() }];
}

function jurisdictionWelcome(choice: JurisdictionChoice): ChatMessage {
  const jurisdiction = getJurisdiction(choice.code)!;
  const place = jurisdictionPlace(jurisdiction, choice.subRegion);
  return {
    id: `jurisdiction-${choice.code}${choice.subRegion ? `-${choice.subRegion}` : ''}`,
    type: 'agent',
    content: LEGAL.welcome(place, jurisdiction.legalSystem),
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

function scopeOfConversation(conversation: VisitorConversation): string {
  return scopeKeyOf(conversation.vertical, jurisdictionChoice(conversation.jurisdiction, conversation.subJurisdiction));
}

/** Final voice text joins what is already typed with a space. */
export function appendSpoken(current: string, spoken: string): string {
  return current.trim() === '' ? spoken : `${current.replace(/\s+$/, '')} ${spoken}`;
}

export interface ChatPageProps extends ChatConnectionOptions {
  /** Client-side reply time-out (ms); 130000 by default. */
  requestTimeoutMs?: number;
}

/** The public chat page ("/"): product-spec section 2, "Main chat screen". */
export default function ChatPage({ requestTimeoutMs, ...connectionOptions }: ChatPageProps) {
  const { connection, status } = useChatConnection(connectionOptions);
  // The tab, language and jurisdiction the visitor left the page with (this browser remembers them).
  const [remembered] = useState(readPreferences);
  const [verticalId, setVerticalId] = useState<VerticalId>(() =>
    remembered.vertical && getVertical(remembered.vertical)?.enabled ? remembered.vertical : FIRST_VERTICAL,
  );
  const [language, setLanguage] = useState<Language>(() => (remembered.language && getLanguageByCode(remembered.language)) || DEFAULT_LANGUAGE);
  const [jurisdiction, setJurisdiction] = useState<JurisdictionChoice | null>(() => jurisdictionChoice(remembered.jurisdiction?.code, remembered.jurisdiction?.subRegion));
  const [modalOpen, setModalOpen] = useState(false);
  const [input, setInput] = useState('');
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const settings = usePublicSettings(connectionOptions.fetch);
  const languageTouched = useRef(Boolean(remembered.language && getLanguageByCode(remembered.language)));
  // A vertical is usable when the catalogue enables it and the administrators have not switched it off.
  const isEnabled = (id: VerticalId) => Boolean(getVertical(id)?.enabled) && settings?.verticals.find((v) => v.id === id)?.enabled !== false;
  const conversations = useConversations({
    connection,
    fetch: connectionOptions.fetch ?? ((...args) => fetch(...args)),
    timeoutMs: requestTimeoutMs,
    welcome: welcomeOfScope,
    scopeOf: scopeOfConversation,
  });
  const voice = useSpeechRecognition({
    locale: language.speechLocale,
    onFinal: (text) => setInput((current) => appendSpoken(current, text)),
  });
  const vertical = verticalOf(verticalId);
  const online = status === 'online';
  const scope = scopeKeyOf(verticalId, jurisdiction);
  const messages = conversations.messagesOf(scope);
  const pending = conversations.pendingIn(scope);

  useEffect(() => {
    if (!settings) return;
    const initial = getLanguageByCode(settings.defaultLanguage);
    if (initial && !languageTouched.current) setLanguage(initial);
    if (!isEnabled(verticalId)) {
      const first = VERTICALS.find((v) => isEnabled(v.id));
      if (first) setVerticalId(first.id);
    }
    // Runs when the settings arrive; the vertical check uses the state of that moment.
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
    if (query === '' || pending || !online || voice.listening) return;
    if (vertical.requiresJurisdiction && !jurisdiction) {
      setModalOpen(true);
      return;
    }
    if (conversations.send(scope, query, { vertical: verticalId, language, jurisdiction })) {
      setInput('');
      focusInput();
    }
  };

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

  const stop = useCallback(() => {
    conversations.stop(scope);
    focusInput();
  }, [conversations, scope]);

  const newChat = () => {
    void conversations.newChat(scope, verticalId, jurisdiction);
    setInput('');
    focusInput();
  };

  return (
    <div className="chat-page">
      <ChatHeader status={status} />
      <main className="chat-main">
        <VerticalTabs selected={verticalId} panelId={PANEL_ID} onSelect={selectVertical} isEnabled={isEnabled} />
        {vertical.requiresJurisdiction && <LegalNotice choice={jurisdiction} />}
        <section
          id={PANEL_ID}
          className="chat-panel"
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
                <h2>{vertical.name}</h2>
                <p>{vertical.description}</p>
              </div>
            </div>
            <div className="panel-actions">
              <LanguageSelect
                value={language}
                onChange={(next) => {
                  languageTouched.current = true;
                  setLanguage(next);
                  savePreferences({ language: next.code });
                }}
              />
              <ConversationActions
                canStartOver={messages.some((m) => m.type === 'user')}
                onNewChat={newChat}
                onDeleteAll={conversations.deleteAll}
              />
            </div>
          </div>
          {vertical.requiresJurisdiction && <JurisdictionBar choice={jurisdiction} onOpen={() => setModalOpen(true)} />}
          {status === 'offline' && <OfflineBanner />}
          <MessageList messages={messages} busy={pending} onAskIn={askIn} />
          <Composer
            ref={inputRef}
            value={input}
            onChange={setInput}
            onSend={send}
            onStop={stop}
            status={status}
            pending={pending}
            voice={voice}
            languageName={language.name}
          />
        </section>
      </main>
      <ChatFooter />
      <JurisdictionModal open={modalOpen} current={jurisdiction} onClose={() => setModalOpen(false)} onSelect={chooseJurisdiction} />
    </div>
  );
}

function OfflineBanner() {
  return (
    <div className="offline-banner" role="alert">
      <WifiOff aria-hidden="true" size={18} />
      {CHAT.offlineBanner}
    </div>
  );
}
