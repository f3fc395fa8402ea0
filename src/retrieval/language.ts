/**
 * Which offered language a text is written in: shared with the chat page (src/shared), which uses
 * it to answer a visitor in the language they write in until they pick one.
 */
export { detectLanguage, isQuestionFiller, LATIN_LANGUAGES } from '../shared/language-detection';
