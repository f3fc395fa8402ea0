/**
 * Every text the chat page shows, in one place. Texts quoted by the product spec are copied
 * exactly; the rest are ours. Vertical names, descriptions, badges and welcome messages come from
 * the shared catalog; the reply error texts live with the reply reducer (lib/reply-stream).
 */
export const BRAND = {
  name: 'Support Assistant',
  tagline: 'From questions to solutions, a fast lane for support',
};

export const CHAT = {
  /** Badge of a vertical the administrators switched off. */
  unavailableBadge: 'Unavailable',
  processing: 'Processing with Core Intelligence...',
  offlineBanner: 'System offline. Please check connection.',
  offlinePlaceholder: 'System offline...',
  connectingPlaceholder: 'Connecting...',
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
  /** Client-side time-out of a reply (product-spec section 9). */
  timedOut: 'Request timed out',
  /** A stored reply whose server stopped while writing it. */
  interrupted: 'The reply was interrupted',
  newChat: 'New chat',
  newChatHint: 'Start a new conversation here',
  deleteConversations: 'Delete my conversations',
  deleteTitle: 'Delete your conversations?',
  deleteText: 'This deletes every conversation you had here, in all services, from our servers. It cannot be undone.',
  deleteConfirm: 'Delete',
  deleting: 'Deleting...',
  deleteCancel: 'Cancel',
  deleteFailed: 'Your conversations could not be deleted. Please try again.',
};

export const VOICE = {
  start: 'Start voice input',
  stop: 'Stop voice input',
  recording: (language: string) => `Recording... Speak now in ${language}`,
  /** Alerts, product-spec section 8 (Voice). */
  unsupported: 'Voice input is not supported in your browser',
  notAllowed: 'Microphone access denied. Please allow microphone access to use voice input.',
  network: 'Network error. Please check your connection.',
  serviceNotAllowed: 'Microphone access denied.',
  noSpeech: 'No speech detected. Please try again.',
  noMicrophone: 'No microphone found.',
  other: (code: string) => `Voice recognition error: ${code}`,
  startFailed: 'Failed to start voice recognition',
};

export const LEGAL = {
  select: 'Select Jurisdiction',
  change: 'Change Jurisdiction',
  subtitle: 'Choose the jurisdiction your question is about, so we can give you accurate guidance for where you are.',
  close: 'Close',
  back: 'Back',
  continue: 'Continue',
  choose: (label: string) => `Choose a ${label.toLowerCase()}...`,
  subRegionHeading: (label: string) => `Select ${label}`,
  noticeTitle: 'Legal notice',
  notice:
    'This service gives general legal information, not legal advice. For advice about your situation, consult a qualified lawyer licensed in your jurisdiction.',
  badgeLabel: 'Selected jurisdiction',
  welcome: (place: string, legalSystem: string) =>
    `Jurisdiction set to ${place} (${legalSystem}). What legal question can I help you with?`,
};

export const FOOTER = {
  copyright: (year: number) => `© ${year} ${BRAND.name}. All rights reserved.`,
  availability: 'Available 24/7',
  admin: 'Admin Dashboard',
};
