/**
 * Small talk for the offline knowledge responder: a message that is only a greeting, a thanks or a
 * goodbye ("hi", "thanks a lot!", "merci beaucoup", "谢谢") in one of the 11 offered languages is
 * answered in kind, in the language it is written in (or the visitor's), instead of "I couldn't
 * find anything in our knowledge base"; a goodbye with a short goodbye, asking nothing back. A message with anything else in it is a question and goes the usual way. (An
 * LLM agent gets the message itself and answers small talk on its own.)
 */

export type SmallTalk = 'hello' | 'thanks' | 'bye';

/** What a small-talk message is, and the language it is written in when its words tell. */
export interface SmallTalkMessage {
  kind: SmallTalk;
  /** The one offered language all its small-talk words belong to, if any ("hola": es; "ok": none). */
  language?: string;
}

/** Words that make up small talk, per language and kind (lower case, no punctuation). */
const WORDS: Readonly<Record<string, Readonly<Record<SmallTalk, string>>>> = {
  en: { hello: 'hi hello hey hiya howdy greetings morning afternoon evening', thanks: 'thanks thank thx ty cheers appreciated appreciate much lot many very so', bye: 'bye goodbye see later cya' },
  es: { hello: 'hola buenos buenas días dias tardes noches', thanks: 'gracias muchas mil', bye: 'adiós adios hasta luego pronto' },
  fr: { hello: 'bonjour salut bonsoir coucou', thanks: 'merci beaucoup', bye: 'revoir' },
  de: { hello: 'hallo guten tag morgen abend servus moin grüß gruß gott', thanks: 'danke dank vielen schön sehr', bye: 'tschüss tschüs wiedersehen' },
  it: { hello: 'ciao buongiorno buonasera salve', thanks: 'grazie mille tante', bye: 'arrivederci' },
  pt: { hello: 'olá ola oi bom boa dia tarde noite', thanks: 'obrigado obrigada muito', bye: 'tchau adeus até logo' },
  ar: { hello: 'مرحبا مرحبًا اهلا أهلا السلام عليكم صباح مساء الخير', thanks: 'شكرا شكرًا شكراً جزيلا جزيلاً', bye: 'مع السلامة وداعا' },
  hi: { hello: 'नमस्ते नमस्कार हेलो', thanks: 'धन्यवाद शुक्रिया बहुत', bye: 'अलविदा' },
  ko: { hello: '안녕 안녕하세요', thanks: '감사합니다 고맙습니다 감사해요 고마워요', bye: '안녕히 계세요 가세요' },
};

/** Words that may come with small talk without making it a question ("hi there", "thank you team"). */
const ALSO = 'good au auf there you all team everyone folks again for the your help and a to yes ok okay oh ah well thee du vous tous todos tutti'.split(' ');

/** Whole messages in the languages written without spaces between words, per language and kind. */
const WHOLE: Readonly<Record<string, Readonly<Record<SmallTalk, string[]>>>> = {
  zh: {
    hello: ['你好', '您好', '嗨', '哈喽', '大家好', '早上好', '晚上好', '下午好'],
    thanks: ['谢谢', '謝謝', '多谢', '谢谢你', '谢谢您', '非常感谢', '感谢'],
    bye: ['再见', '再見', '拜拜'],
  },
  ja: {
    hello: ['こんにちは', 'こんばんは', 'おはよう', 'おはようございます', 'やあ', 'もしもし'],
    thanks: ['ありがとう', 'ありがとうございます', 'ありがとうございました', 'どうもありがとう', 'どうも'],
    bye: ['さようなら', 'さよなら', 'またね', 'では また'],
  },
};

/** Word -> its kind and the languages it belongs to. */
const vocabulary = new Map<string, { kind: SmallTalk; languages: string[] }>();
for (const [language, kinds] of Object.entries(WORDS)) {
  for (const kind of ['hello', 'bye', 'thanks'] as const) {
    for (const word of kinds[kind].split(' ')) {
      const known = vocabulary.get(word);
      if (known) known.languages.push(language);
      else vocabulary.set(word, { kind, languages: [language] });
    }
  }
}
const also = new Set(ALSO);
const whole = new Map<string, SmallTalkMessage>();
for (const [language, kinds] of Object.entries(WHOLE)) for (const kind of ['hello', 'thanks', 'bye'] as const) for (const message of kinds[kind]) whole.set(message, { kind, language });

/** Most words a small-talk message has ("hello there, good morning to you all"). */
const MAX_WORDS = 8;

/**
 * What kind of small talk `message` is (and in which language), or undefined when it is (or has)
 * a question. A goodbye wins over thanks or a greeting in one message ("ok thanks, bye": the
 * visitor is leaving, so no question back), and thanks over a greeting. Numbers alone are no
 * question ("thanks 9").
 */
export function smallTalkOf(message: string): SmallTalkMessage | undefined {
  const text = message.normalize('NFKC').toLowerCase().trim();
  if (text === '' || text.length > 80) return undefined;
  const bare = text.replace(/[\p{P}\p{S}\s]+/gu, ' ').trim();
  const cjk = whole.get(bare) ?? whole.get(bare.replace(/ /g, ''));
  if (cjk) return cjk;
  const words = bare.split(' ').filter((w) => w !== '' && !/^\d+$/.test(w));
  if (words.length === 0 || words.length > MAX_WORDS) return undefined;
  const kinds = new Set<SmallTalk>();
  let languages: string[] | undefined;
  for (const word of words) {
    const known = vocabulary.get(word);
    if (known) {
      kinds.add(known.kind);
      languages = languages ? languages.filter((l) => known.languages.includes(l)) : [...known.languages];
    } else if (!also.has(word)) return undefined;
  }
  const language = languages?.length === 1 ? languages[0] : undefined;
  const of = (kind: SmallTalk): SmallTalkMessage => (language ? { kind, language } : { kind });
  if (kinds.has('bye')) return of('bye');
  if (kinds.has('thanks')) {
    // "thank" or "gracias" itself, not only an intensifier ("very", "much") with a greeting.
    const thanked = words.some((w) => /^(thanks|thank|thx|ty|cheers|appreciated|appreciate|gracias|merci|danke|dank|grazie|obrigad[oa]|شكر.*|धन्यवाद|शुक्रिया|감사.*|고맙.*|고마워요)$/u.test(w));
    if (thanked) return of('thanks');
    kinds.delete('thanks');
  }
  if (kinds.has('hello')) return of('hello');
  return undefined;
}

/**
 * The language small talk is answered in: the one it is written in when that is another offered
 * language than English ("Hola" on an English page gets "¡Hola!"), else the reply language
 * (`replyLanguage`): "hi", "ok thanks" and "bye" are said in every language, and answered in the
 * one the visitor reads.
 */
export function smallTalkLanguage(message: SmallTalkMessage, replyLanguage: string): string {
  return message.language && message.language !== 'en' && SMALL_TALK_REPLIES[message.language] ? message.language : replyLanguage;
}

/** The responder's answer to small talk, per language code (the offered 11). */
export const SMALL_TALK_REPLIES: Readonly<Record<string, Readonly<Record<SmallTalk, string>>>> = {
  en: {
    hello: 'Hello! What can I help you with? Ask me a question and I will look for the answer in our knowledge base.',
    thanks: "You're welcome! Is there anything else I can help you with?",
    bye: 'Goodbye, and thank you for getting in touch!',
  },
  es: {
    hello: '¡Hola! ¿En qué puedo ayudarle? Hágame una pregunta y buscaré la respuesta en nuestra base de conocimiento.',
    thanks: '¡De nada! ¿Hay algo más en lo que pueda ayudarle?',
    bye: '¡Adiós, y gracias por ponerse en contacto con nosotros!',
  },
  fr: {
    hello: 'Bonjour ! Comment puis-je vous aider ? Posez-moi une question et je chercherai la réponse dans notre base de connaissances.',
    thanks: 'Je vous en prie ! Puis-je vous aider pour autre chose ?',
    bye: 'Au revoir, et merci de nous avoir contactés !',
  },
  de: {
    hello: 'Hallo! Wie kann ich Ihnen helfen? Stellen Sie mir eine Frage, und ich suche die Antwort in unserer Wissensdatenbank.',
    thanks: 'Gern geschehen! Kann ich Ihnen sonst noch helfen?',
    bye: 'Auf Wiedersehen, und danke für Ihre Nachricht!',
  },
  zh: {
    hello: '您好！有什么可以帮您？请提出您的问题，我会在我们的知识库中查找答案。',
    thanks: '不客气！还有什么可以帮您的吗？',
    bye: '再见，感谢您的联系！',
  },
  ja: {
    hello: 'こんにちは！どのようなご用件でしょうか。ご質問いただければ、ナレッジベースから答えを探します。',
    thanks: 'どういたしまして！ほかにお手伝いできることはありますか？',
    bye: 'ご連絡ありがとうございました。さようなら！',
  },
  ko: {
    hello: '안녕하세요! 무엇을 도와드릴까요? 질문해 주시면 지식 베이스에서 답을 찾아 드리겠습니다.',
    thanks: '천만에요! 더 도와드릴 일이 있을까요?',
    bye: '연락해 주셔서 감사합니다. 안녕히 가세요!',
  },
  hi: {
    hello: 'नमस्ते! मैं आपकी क्या मदद कर सकता हूँ? अपना प्रश्न पूछिए, मैं हमारे ज्ञानकोष में उत्तर खोजूँगा।',
    thanks: 'आपका स्वागत है! क्या मैं किसी और चीज़ में आपकी मदद कर सकता हूँ?',
    bye: 'संपर्क करने के लिए धन्यवाद, अलविदा!',
  },
  pt: {
    hello: 'Olá! Como posso ajudar? Faça uma pergunta e vou procurar a resposta na nossa base de conhecimento.',
    thanks: 'De nada! Posso ajudar em mais alguma coisa?',
    bye: 'Até logo, e obrigado pelo contato!',
  },
  it: {
    hello: 'Salve! Come posso aiutarla? Mi faccia una domanda e cercherò la risposta nella nostra base di conoscenza.',
    thanks: 'Prego! Posso aiutarla in qualcos’altro?',
    bye: 'Arrivederci, e grazie per averci contattato!',
  },
  ar: {
    hello: 'مرحبًا! كيف يمكنني مساعدتك؟ اطرح سؤالك وسأبحث عن الإجابة في قاعدة المعرفة لدينا.',
    thanks: 'على الرحب والسعة! هل هناك شيء آخر يمكنني مساعدتك فيه؟',
    bye: 'مع السلامة، وشكرًا لتواصلك معنا!',
  },
};
