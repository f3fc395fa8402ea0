/**
 * The chat page's English texts: the reference dictionary. Every other language has the same
 * shape (ChatStrings), checked by the compiler, so a text missing in one language is a type error.
 * Tests check these texts word for word; the vertical names, descriptions, badges and welcome
 * messages are read from the shared catalog, which holds them once.
 */
import { JURISDICTIONS, type JurisdictionCode, type LegalSystem, type SubRegionLabel } from '@shared/catalog/jurisdictions';
import { VERTICALS, type VerticalId } from '@shared/catalog/verticals';
import { apologyText, CHAT_ERROR_DEFAULTS } from '../../../lib/reply-stream';

export interface VerticalTexts {
  name: string;
  description: string;
  welcome: string;
  badge?: string;
}

export interface JurisdictionTexts {
  name: string;
  warning?: string;
}

function verticalTexts(): Record<VerticalId, VerticalTexts> {
  return Object.fromEntries(
    VERTICALS.map((v) => [v.id, { name: v.name, description: v.description, welcome: v.welcomeMessage, ...(v.badge ? { badge: v.badge } : {}) }]),
  ) as Record<VerticalId, VerticalTexts>;
}

function jurisdictionTexts(): Record<JurisdictionCode, JurisdictionTexts> {
  return Object.fromEntries(JURISDICTIONS.map((j) => [j.code, { name: j.name, ...(j.warning ? { warning: j.warning } : {}) }])) as Record<
    JurisdictionCode,
    JurisdictionTexts
  >;
}

const legalSystems: Record<LegalSystem, string> = {
  'Common Law': 'Common Law',
  'Civil Law': 'Civil Law',
  'Common Law with Civil influences': 'Common Law with Civil influences',
  'Mixed civil/Sharia/common': 'Mixed civil/Sharia/common',
};

const BRAND_NAME = 'Support Assistant';

/** A wait as people read it: "45 s", "2 min", "1 min 30 s" (with each language's units). */
export function formatWait(seconds: number, s: string, min: string): string {
  if (seconds < 60) return `${seconds} ${s}`;
  return seconds % 60 === 0 ? `${seconds / 60} ${min}` : `${Math.floor(seconds / 60)} ${min} ${seconds % 60} ${s}`;
}

export const en = {
  /** This language's name in itself, as a sentence uses it ("Speak now in English"). */
  selfName: 'English',
  brand: {
    name: BRAND_NAME,
    tagline: 'From questions to solutions, a fast lane for support',
  },
  chat: {
    /** Badge of a vertical the administrators switched off. */
    unavailableBadge: 'Unavailable',
    processing: 'Processing with Core Intelligence...',
    /** The connection dropped: the spec's banner, and that the visitor can keep typing. */
    offline: 'System offline. Please check connection.',
    offlineHint: 'You can keep typing: your message is sent as soon as the connection is back.',
    /** Under the composer while a message waits for the connection. */
    queued: 'Your message will be sent when the connection is back.',
    cancelQueued: 'Cancel sending',
    connectingPlaceholder: 'Connecting...',
    offlinePlaceholder: 'System offline...',
    listeningPlaceholder: 'Listening...',
    placeholder: 'Type your message...',
    inputLabel: 'Your message',
    inputHint: 'Enter sends, Shift+Enter adds a new line',
    send: 'Send',
    stop: 'Stop',
    stopped: 'Stopped',
    language: 'Language',
    messagesLabel: 'Conversation',
    sources: 'Sources',
    /** Under a "not found" reply whose question another vertical's knowledge answers. */
    askIn: (vertical: string) => `Ask in ${vertical}`,
    processingTime: 'Processing time',
    servicesLabel: 'Services',
    status: { connecting: 'Connecting', online: 'Online', offline: 'Offline' },
    newChat: 'New chat',
    newChatHint: 'Start a new conversation here',
    deleteConversations: 'Delete my conversations',
    deleteTitle: 'Delete your conversations?',
    deleteText: 'This deletes every conversation you had here, in all services, from our servers. It cannot be undone.',
    deleteConfirm: 'Delete',
    deleting: 'Deleting...',
    deleteCancel: 'Cancel',
    deleteFailed: 'Your conversations could not be deleted. Please try again.',
    /** A vertical switched off while the visitor was on its tab. */
    verticalOff: (name: string) => `${name} is not available right now. Please choose another service.`,
  },
  actions: {
    group: 'Reply actions',
    copy: 'Copy',
    copied: 'Copied',
    copyFailed: 'Could not copy',
    copyCode: 'Copy code',
    retry: 'Retry',
    regenerate: 'Regenerate',
  },
  source: {
    open: (title: string) => `Open source: ${title}`,
    title: 'Source',
    close: 'Close',
    loading: 'Loading the source…',
    failed: 'This source could not be opened. It may have been removed.',
    passage: 'Cited passage',
    updated: (date: string) => `Updated ${date}`,
  },
  errors: {
    apology: (reason: string) => apologyText(reason),
    send: CHAT_ERROR_DEFAULTS.send as string,
    response: CHAT_ERROR_DEFAULTS.response as string,
    unknown: CHAT_ERROR_DEFAULTS.unknown as string,
    /** Client-side time-out of a reply. */
    timedOut: 'Request timed out',
    /** A stored reply whose server stopped while writing it. */
    interrupted: 'The reply was interrupted',
  },
  /**
   * The reason of a failed reply whose error code the page knows, in the visitor's language. English
   * shows the server's own text instead (English already, and it may say more, e.g. which vertical);
   * an unknown code shows the server's text in every language.
   */
  errorCodes: {
    vertical_disabled: 'This assistant is not available right now',
    provider_error: 'The assistant could not produce a reply',
    provider_timeout: 'The AI provider did not respond in time',
    provider_rate_limited: 'The AI provider is busy',
    chat_timeout: 'The reply took too long',
    server_restarting: 'The server is restarting; it will be back in a moment',
    rate_limited: 'Too many replies at once; wait for one to finish',
    budget_exhausted: 'The assistant has reached its limit for this month',
    quota_exhausted: "You have reached today's limit for the assistant",
    not_found: 'This reply could not be found',
    reply_interrupted: 'The reply was interrupted',
    service_unavailable: 'The service is unavailable for a moment',
    database_unavailable: 'The service is unavailable for a moment',
    internal_error: 'Something went wrong on our side',
    jurisdiction_required: 'Please choose a jurisdiction first',
  },
  feedback: {
    group: 'Rate this reply',
    up: 'Helpful',
    down: 'Not helpful',
    failed: 'Your feedback could not be saved.',
    thanks: 'Thanks for your feedback',
  },
  voice: {
    transcribing: "Transcribing…",
    transcribeFailed: "Could not turn the recording into text. Please try again, or type your question.",
    start: 'Start voice input',
    stop: 'Stop voice input',
    recording: (language: string) => `Recording... Speak now in ${language}`,
    /** Voice input alerts. */
    unsupported: 'Voice input is not supported in your browser',
    notAllowed: 'Microphone access denied. Please allow microphone access to use voice input.',
    network: 'Network error. Please check your connection.',
    serviceNotAllowed: 'Microphone access denied.',
    noSpeech: 'No speech detected. Please try again.',
    noMicrophone: 'No microphone found.',
    other: (code: string) => `Voice recognition error: ${code}`,
    startFailed: 'Failed to start voice recognition',
  },
  widget: { close: "Close chat" },
  /** Handing the conversation to a person. */
  handoff: {
    ask: 'Talk to a person',
    offer: 'Would you like a person to help you?',
    asking: 'Asking for a person…',
    queue: (position: number) => `You are number ${position} in the queue.`,
    wait: (minutes: number) => `Expected wait: about ${minutes} min.`,
    joined: (name: string) => `${name} is answering you.`,
    typing: (name: string) => `${name} is typing…`,
    emailLabel: 'Your email, for the answer if you leave',
    send: 'Send',
    emailSaved: 'Thank you: the answer will also reach you by email.',
    messageLabel: 'Your message for our team',
    leaveMessage: 'Leave a message',
    failed: 'A person could not be asked for right now. Please try again.',
    resolved: 'The conversation with our team has ended.',
    /** A person's reply arrived in a conversation out of view (it is shown there). */
    elsewhere: (name: string, where: string) => `${name} replied in your ${where} conversation.`,
  },
  notice: {
    dismiss: 'Dismiss',
  },
  /** A message a rate limit refused (the question stays in the composer). */
  limits: {
    title: 'Too many messages',
    /** `wait` is formatted by waitText. */
    countdown: (wait: string) => `You are sending messages faster than the assistant allows. You can send again in ${wait}.`,
    ready: 'You can send your message again now.',
    waitText: (seconds: number) => formatWait(seconds, 's', 'min'),
  },
  legal: {
    select: 'Select Jurisdiction',
    change: 'Change Jurisdiction',
    subtitle: 'Choose the jurisdiction your question is about, so we can give you accurate guidance for where you are.',
    close: 'Close',
    back: 'Back',
    continue: 'Continue',
    /** The empty option of the sub-region select (with the right article for each). */
    choose: { State: 'Choose a state...', Region: 'Choose a region...', Emirate: 'Choose an emirate...' } as Record<SubRegionLabel, string>,
    subRegionHeading: { State: 'Select State', Region: 'Select Region', Emirate: 'Select Emirate' } as Record<SubRegionLabel, string>,
    noticeTitle: 'Legal notice',
    noticeShort: 'General legal information, not legal advice.',
    notice:
      'This service gives general legal information, not legal advice. For advice about your situation, consult a qualified lawyer licensed in your jurisdiction.',
    more: 'More',
    less: 'Less',
    badgeLabel: 'Selected jurisdiction',
    welcome: (place: string, legalSystem: string) => `Jurisdiction set to ${place} (${legalSystem}). What legal question can I help you with?`,
    /** The Legal Advisor's welcome once a jurisdiction is chosen (no "Choose a jurisdiction" left in it). */
    welcomeChosen: "Welcome! I'm your legal information assistant. I provide general legal information, not legal advice.",
    jurisdictions: jurisdictionTexts(),
    legalSystems,
  },
  footer: {
    copyright: (year: number) => `© ${year} ${BRAND_NAME}. All rights reserved.`,
    availability: 'Available 24/7',
    admin: 'Admin Dashboard',
  },
  verticals: verticalTexts(),
};

export type ChatStrings = typeof en;
