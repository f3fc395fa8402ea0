import { useCallback, useEffect, useRef, useState, type CSSProperties } from 'react';
import { WifiOff } from 'lucide-react';
import { getJurisdiction } from '@shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, type Language } from '@shared/catalog/languages';
import { getVertical, VERTICALS, type Vertical, type VerticalId } from '@shared/catalog/verticals';
import type { ChatMessage } from '../../lib/reply-stream';
import type { ChatConnectionOptions } from './api/chat-connection';
import { jurisdictionPlace, type JurisdictionChoice } from './api/chat-payload';
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
import { useConversation } from './hooks/useConversation';
import { usePublicSettings } from './hooks/usePublicSettings';
import { useSpeechRecognition } from './hooks/useSpeechRecognition';
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
    id: `jurisdiction-${Date.now().toString(36)}-${choice.code}`,
    type: 'agent',
    content: LEGAL.welcome(place, jurisdiction.legalSystem),
    timestamp: new Date().toISOString(),
  };
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
  const [verticalId, setVerticalId] = useState<VerticalId>(FIRST_VERTICAL);
  const [language, setLanguage] = useState<Language>(DEFAULT_LANGUAGE);
  const [jurisdiction, setJurisdiction] = useState<JurisdictionChoice | null>(null);
  const [modalOpen, setModalOpen] = useState(false);
  const [input, setInput] = useState('');
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const settings = usePublicSettings(connectionOptions.fetch);
  const languageTouched = useRef(false);
  // A vertical is usable when the catalogue enables it and the administrators have not switched it off.
  const isEnabled = (id: VerticalId) => Boolean(getVertical(id)?.enabled) && settings?.verticals.find((v) => v.id === id)?.enabled !== false;
  const conversation = useConversation({ connection, timeoutMs: requestTimeoutMs, initial: () => welcomeOf(FIRST_VERTICAL) });
  const voice = useSpeechRecognition({
    locale: language.speechLocale,
    onFinal: (text) => setInput((current) => appendSpoken(current, text)),
  });
  const vertical = verticalOf(verticalId);
  const online = status === 'online';

  useEffect(() => {
    if (!settings) return;
    const initial = getLanguageByCode(settings.defaultLanguage);
    if (initial && !languageTouched.current) setLanguage(initial);
    if (!isEnabled(verticalId)) {
      const first = VERTICALS.find((v) => isEnabled(v.id));
      if (first) {
        setVerticalId(first.id);
        conversation.reset(welcomeOf(first.id));
      }
    }
    // Runs when the settings arrive; the vertical check uses the state of that moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settings]);

  const focusInput = () => requestAnimationFrame(() => inputRef.current?.focus());

  const selectVertical = (id: VerticalId) => {
    if (id === verticalId || !isEnabled(id)) return;
    const next = verticalOf(id);
    setVerticalId(id);
    conversation.reset(welcomeOf(id));
    if (next.requiresJurisdiction && !jurisdiction) setModalOpen(true);
  };

  const chooseJurisdiction = (choice: JurisdictionChoice) => {
    setJurisdiction(choice);
    setModalOpen(false);
    conversation.append(jurisdictionWelcome(choice));
  };

  const send = () => {
    const query = input.trim();
    if (query === '' || conversation.pending || !online || voice.listening) return;
    if (vertical.requiresJurisdiction && !jurisdiction) {
      setModalOpen(true);
      return;
    }
    if (conversation.send(query, { vertical: verticalId, language, jurisdiction })) {
      setInput('');
      focusInput();
    }
  };

  /** "Ask in Employee Support": switch to that tab and ask the same question there. */
  const askIn = (id: VerticalId, question: string) => {
    if (id === verticalId || !isEnabled(id) || conversation.pending || !online) return;
    const next = verticalOf(id);
    setVerticalId(id);
    conversation.reset(welcomeOf(id));
    if (next.requiresJurisdiction && !jurisdiction) {
      // The question waits in the composer until a jurisdiction is chosen.
      setInput(question);
      setModalOpen(true);
      return;
    }
    conversation.send(question, { vertical: id, language, jurisdiction });
    focusInput();
  };

  const stop = useCallback(() => {
    conversation.stop();
    focusInput();
  }, [conversation]);

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
            <LanguageSelect
              value={language}
              onChange={(next) => {
                languageTouched.current = true;
                setLanguage(next);
              }}
            />
          </div>
          {vertical.requiresJurisdiction && <JurisdictionBar choice={jurisdiction} onOpen={() => setModalOpen(true)} />}
          {status === 'offline' && <OfflineBanner />}
          <MessageList messages={conversation.messages} busy={conversation.pending} onAskIn={askIn} />
          <Composer
            ref={inputRef}
            value={input}
            onChange={setInput}
            onSend={send}
            onStop={stop}
            status={status}
            pending={conversation.pending}
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
