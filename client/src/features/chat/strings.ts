/**
 * The chat page's English texts under their historical names. Components read the visitor's
 * language through useStrings() (i18n/); these are for code outside React (and tests).
 */
import { en } from './i18n/en';

export const BRAND = en.brand;
export const CHAT = en.chat;
export const VOICE = en.voice;
export const LEGAL = en.legal;
export const FOOTER = en.footer;
export const LIMITS = en.limits;
