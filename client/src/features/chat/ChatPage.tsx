import { useEffect, useRef, useState } from 'react';
import { io, Socket } from 'socket.io-client';
import { LANGUAGES } from '@shared/catalog/languages';
import { getVertical, VERTICALS } from '@shared/catalog/verticals';
import type { ClientToServerEvents, ServerToClientEvents } from '@shared/contracts/socket';
import { applyStreamEvent, ChatMessage } from '../../lib/reply-stream';

/**
 * A minimal chat page: pick a vertical, ask, watch the reply stream in with its sources.
 * The full chat page (jurisdictions, voice, offline banner) replaces this in its own issue.
 */
function welcome(verticalId: string): ChatMessage[] {
  return [{ id: `welcome-${verticalId}`, type: 'agent', content: getVertical(verticalId)?.welcomeMessage ?? '' }];
}

export default function ChatPage() {
  const socketRef = useRef<Socket<ServerToClientEvents, ClientToServerEvents> | null>(null);
  const [online, setOnline] = useState(false);
  const [vertical, setVertical] = useState('customer-service');
  const [language, setLanguage] = useState('English');
  const [messages, setMessages] = useState<ChatMessage[]>(() => welcome('customer-service'));
  const [input, setInput] = useState('');
  const listRef = useRef<HTMLDivElement>(null);
  const pending = messages.some((m) => m.streaming);

  useEffect(() => {
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({ transports: ['websocket', 'polling'] });
    socketRef.current = socket;
    socket.on('connect', () => setOnline(true));
    socket.on('disconnect', () => setOnline(false));
    socket.on('health', (h) => setOnline(h.status === 'healthy'));
    socket.on('chat:delta', (p) => setMessages((m) => applyStreamEvent(m, { kind: 'delta', ...p })));
    socket.on('chat:done', (p) => setMessages((m) => applyStreamEvent(m, { kind: 'done', ...p })));
    socket.on('chat:error', (p) => setMessages((m) => applyStreamEvent(m, { kind: 'error', ...p })));
    return () => {
      socket.close();
    };
  }, []);

  useEffect(() => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
  }, [messages]);

  const send = () => {
    const query = input.trim();
    if (!query || pending || !online || vertical === 'legal') return;
    const requestId = crypto.randomUUID();
    const history = messages.filter((m) => !m.id.startsWith('welcome-')).map((m) => ({ type: m.type, content: m.content }));
    setMessages((m) => [...m, { id: `${requestId}-q`, type: 'user', content: query }, { id: requestId, type: 'agent', content: '', streaming: true }]);
    setInput('');
    socketRef.current?.emit(
      'chat:send',
      { requestId, query, vertical, userId: 'demo-user', conversationHistory: history, preferredLanguage: language, context: { preferredLanguage: language, skipTranslation: language === 'English' } },
      (ack) => {
        if (!ack.accepted) setMessages((m) => applyStreamEvent(m, { kind: 'error', requestId, message: ack.error.message }));
      },
    );
  };

  return (
    <main className="page">
      <header className="banner">
        <h1>Support Assistant</h1>
        <p>From questions to solutions, a fast lane for support.</p>
      </header>
      <section className="panel">
        <div className="toolbar">
          <label>
            Service{' '}
            <select value={vertical} onChange={(e) => { setVertical(e.target.value); setMessages(welcome(e.target.value)); }}>
              {VERTICALS.filter((v) => v.enabled && !v.requiresJurisdiction).map((v) => (
                <option key={v.id} value={v.id}>{v.name}</option>
              ))}
            </select>
          </label>
          <label>
            Language{' '}
            <select value={language} onChange={(e) => setLanguage(e.target.value)}>
              {LANGUAGES.map((l) => (
                <option key={l.code} value={l.name}>{l.name}</option>
              ))}
            </select>
          </label>
          <span className={online ? 'status online' : 'status offline'}>{online ? 'Connected' : 'System offline. Please check connection.'}</span>
        </div>
        <div className="messages" ref={listRef} aria-live="polite">
          {messages.map((m) => (
            <div key={m.id} className={`message ${m.type}${m.error ? ' error' : ''}`}>
              <div className="bubble">{m.content || (m.streaming ? 'Processing with Core Intelligence...' : '')}</div>
              {m.data && m.data.sources.length > 0 && (
                <div className="meta">Sources: {m.data.sources.map((s) => s.title).join(' · ')} — {m.data.executionTime} ms</div>
              )}
            </div>
          ))}
        </div>
        <form className="composer" onSubmit={(e) => { e.preventDefault(); send(); }}>
          <label htmlFor="question" className="sr-only">Your question</label>
          <textarea
            id="question"
            value={input}
            disabled={!online}
            placeholder={online ? 'Type your question...' : 'System offline...'}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); } }}
          />
          <button type="submit" disabled={!online || pending || !input.trim()}>Send</button>
        </form>
      </section>
      <footer className="footer">
        <span>© {new Date().getFullYear()} Support Assistant</span> · <span>Available 24/7</span> · <a href="/admin">Admin Dashboard</a>
      </footer>
    </main>
  );
}
