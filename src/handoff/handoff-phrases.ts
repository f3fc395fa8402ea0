/**
 * Asking for a person in words, in the product's 11 languages ("talk to a person", "parler à un
 * humain", "mit einem Menschen sprechen", ...), and what the visitor is told, in their language.
 * The matcher is deliberately narrow: a verb of speaking or connecting with a word for a person
 * (or a fixed request such as "human please"), so a question that only mentions people ("how
 * many people work here?") is not mistaken for one.
 */

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[’']/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Per language: patterns on the folded text (accents removed, lower case). */
const PATTERNS: Record<string, RegExp[]> = {
  en: [
    /\b(talk|speak|chat|connect|transfer|put) (me )?(to|with|through to) (a |an |the |some |your )?(real |live |actual )?(person|human|agent|representative|rep|someone|somebody|operator|staff|support team|customer service)\b/,
    /\b(real|live) (person|human|agent)\b/,
    /^(human|agent|operator|representative)( please)?[.!]*$/,
    /\bi (want|need|would like) (a |to talk to a |to speak to a |to speak with a |to talk with a )?(human|person|real person|agent|representative)\b/,
  ],
  es: [/\b(hablar|comunicarme|conectarme|contactar) (con|a) (una |un |alguna |algun )?(persona|humano|agente|operador|representante)\b/, /\b(persona|agente) real\b/],
  fr: [
    /\b(parler|discuter|etre mis en relation|mettre en relation) (a|avec) (un |une )?(vrai |vraie )?(humain|personne|agent|conseiller|conseillere|operateur|operatrice)\b/,
    /\b(parler|discuter) (a|avec) quelqu un\b/,
    /\b(un|une) (vrai|vraie) (personne|humain)\b/,
  ],
  de: [/\b(mit|zu) (einem|einer|einen) (menschen|person|mitarbeiter|mitarbeiterin|berater|beraterin|agenten)\b.*\b(sprechen|reden|verbinden|chatten)\b/, /\b(menschen|mitarbeiter) sprechen\b/, /\becht(en|e)? (menschen|person)\b/],
  it: [/\b(parlare|chattare|mettermi in contatto) (con|a) (una |un |un a )?(persona|umano|operatore|operatrice|agente|consulente)\b/, /\bpersona reale\b/],
  pt: [/\b(falar|conversar) (com|a) (uma |um )?(pessoa|humano|atendente|agente|operador)\b/, /\b(falar|conversar) com alguem\b/, /\b(pessoa|atendente) (real|humano)\b/],
  zh: [/人工(客服|服务)?/, /(转|找|联系|要)(真人|人工|客服)/, /真人/],
  ja: [/(人間|オペレーター|担当者|スタッフ|有人)(と|に)(話|つな|繋|相談)/, /オペレーター(を|に)/],
  ko: [/(상담원|사람|직원|상담사)(과|와|이랑|랑|하고)? ?(연결|통화|대화|이야기|얘기)/, /상담원/],
  hi: [/(इंसान|व्यक्ति|एजेंट|किसी व्यक्ति|मनुष्य|प्रतिनिधि) से (बात|संपर्क)/, /\b(talk to|speak to) (a )?(human|person|agent)\b/],
  ar: [/(التحدث|التكلم|اتكلم|أتكلم|أتحدث|تحويلي|تواصل) (مع|الى|إلى) (شخص|إنسان|انسان|موظف|وكيل|ممثل)/, /(موظف|شخص) حقيقي/],
};

/** Whether the text asks for a person (any language: the patterns of every language are tried, the visitor's first). */
export function asksForPerson(text: string, language?: string): boolean {
  const folded = fold(text);
  if (folded.length === 0 || folded.length > 300) return false;
  const first = language ? PATTERNS[language] : undefined;
  if (first?.some((p) => p.test(folded))) return true;
  return Object.entries(PATTERNS).some(([code, patterns]) => code !== language && patterns.some((p) => p.test(folded)));
}

interface Wording {
  /** A person will join; {position} and {wait} are filled in. */
  waiting: string;
  /** Nobody is available now; {opening} is filled in. */
  closed: string;
  /** Nobody is available and no opening is scheduled. */
  closedUnknown: string;
  /** Already with a person. */
  open: string;
}

const WORDING: Record<string, Wording> = {
  en: {
    waiting: 'A person will join this conversation. You are number {position} in the queue (about {wait} min). You can leave your email address if you cannot wait.',
    closed: 'Nobody from our team is available right now. We are next available {opening}. Leave a message and your email address, and we will answer you then.',
    closedUnknown: 'Nobody from our team is available right now. Leave a message and your email address, and we will answer you.',
    open: 'A person from our team is in this conversation.',
  },
  es: {
    waiting: 'Una persona se unirá a esta conversación. Usted es el número {position} en la cola (unos {wait} min). Puede dejar su correo electrónico si no puede esperar.',
    closed: 'Nadie de nuestro equipo está disponible ahora. Volveremos a estar disponibles {opening}. Deje un mensaje y su correo electrónico y le responderemos entonces.',
    closedUnknown: 'Nadie de nuestro equipo está disponible ahora. Deje un mensaje y su correo electrónico y le responderemos.',
    open: 'Una persona de nuestro equipo está en esta conversación.',
  },
  fr: {
    waiting: "Une personne va rejoindre cette conversation. Vous êtes numéro {position} dans la file d'attente (environ {wait} min). Vous pouvez laisser votre adresse e-mail si vous ne pouvez pas attendre.",
    closed: "Personne de notre équipe n'est disponible pour le moment. Nous serons de nouveau disponibles {opening}. Laissez un message et votre adresse e-mail, nous vous répondrons à ce moment-là.",
    closedUnknown: "Personne de notre équipe n'est disponible pour le moment. Laissez un message et votre adresse e-mail, nous vous répondrons.",
    open: 'Une personne de notre équipe est dans cette conversation.',
  },
  de: {
    waiting: 'Eine Person wird sich diesem Gespräch anschließen. Sie sind Nummer {position} in der Warteschlange (etwa {wait} Min.). Sie können Ihre E-Mail-Adresse hinterlassen, wenn Sie nicht warten können.',
    closed: 'Gerade ist niemand aus unserem Team erreichbar. Wir sind wieder erreichbar: {opening}. Hinterlassen Sie eine Nachricht und Ihre E-Mail-Adresse, dann antworten wir Ihnen.',
    closedUnknown: 'Gerade ist niemand aus unserem Team erreichbar. Hinterlassen Sie eine Nachricht und Ihre E-Mail-Adresse, dann antworten wir Ihnen.',
    open: 'Eine Person aus unserem Team ist in diesem Gespräch.',
  },
  it: {
    waiting: 'Una persona si unirà a questa conversazione. Sei il numero {position} in coda (circa {wait} min). Puoi lasciare il tuo indirizzo email se non puoi aspettare.',
    closed: 'Al momento nessuno del nostro team è disponibile. Saremo di nuovo disponibili {opening}. Lascia un messaggio e il tuo indirizzo email e ti risponderemo allora.',
    closedUnknown: 'Al momento nessuno del nostro team è disponibile. Lascia un messaggio e il tuo indirizzo email e ti risponderemo.',
    open: 'Una persona del nostro team è in questa conversazione.',
  },
  pt: {
    waiting: 'Uma pessoa vai entrar nesta conversa. Você é o número {position} na fila (cerca de {wait} min). Pode deixar seu e-mail se não puder esperar.',
    closed: 'Ninguém da nossa equipe está disponível agora. Estaremos disponíveis novamente {opening}. Deixe uma mensagem e seu e-mail e responderemos então.',
    closedUnknown: 'Ninguém da nossa equipe está disponível agora. Deixe uma mensagem e seu e-mail e responderemos.',
    open: 'Uma pessoa da nossa equipe está nesta conversa.',
  },
  zh: {
    waiting: '工作人员将加入此对话。您在队列中排第 {position} 位（约 {wait} 分钟）。如果无法等待，您可以留下电子邮件地址。',
    closed: '我们的团队目前无人在线。下次可服务时间：{opening}。请留言并留下电子邮件地址，我们届时会回复您。',
    closedUnknown: '我们的团队目前无人在线。请留言并留下电子邮件地址，我们会回复您。',
    open: '我们团队的工作人员正在此对话中。',
  },
  ja: {
    waiting: '担当者がこの会話に参加します。順番は {position} 番目です（約 {wait} 分）。お待ちいただけない場合はメールアドレスを残してください。',
    closed: '現在対応できる担当者がいません。次の対応開始は {opening} です。メッセージとメールアドレスを残していただければ、その際にご返信します。',
    closedUnknown: '現在対応できる担当者がいません。メッセージとメールアドレスを残していただければ、ご返信します。',
    open: '担当者がこの会話に参加しています。',
  },
  ko: {
    waiting: '상담원이 이 대화에 참여할 예정입니다. 대기 순서는 {position}번째입니다(약 {wait}분). 기다릴 수 없으시면 이메일 주소를 남겨 주세요.',
    closed: '지금은 상담 가능한 직원이 없습니다. 다음 상담 가능 시간: {opening}. 메시지와 이메일 주소를 남겨 주시면 그때 답변드리겠습니다.',
    closedUnknown: '지금은 상담 가능한 직원이 없습니다. 메시지와 이메일 주소를 남겨 주시면 답변드리겠습니다.',
    open: '상담원이 이 대화에 참여하고 있습니다.',
  },
  hi: {
    waiting: 'एक व्यक्ति इस बातचीत में शामिल होगा। कतार में आपका नंबर {position} है (लगभग {wait} मिनट)। यदि आप प्रतीक्षा नहीं कर सकते तो अपना ईमेल पता छोड़ दें।',
    closed: 'इस समय हमारी टीम से कोई उपलब्ध नहीं है। हम फिर से उपलब्ध होंगे: {opening}। एक संदेश और अपना ईमेल पता छोड़ें, हम तब आपको उत्तर देंगे।',
    closedUnknown: 'इस समय हमारी टीम से कोई उपलब्ध नहीं है। एक संदेश और अपना ईमेल पता छोड़ें, हम आपको उत्तर देंगे।',
    open: 'हमारी टीम का एक व्यक्ति इस बातचीत में है।',
  },
  ar: {
    waiting: 'سينضم شخص من فريقنا إلى هذه المحادثة. ترتيبك في قائمة الانتظار هو {position} (حوالي {wait} دقيقة). يمكنك ترك بريدك الإلكتروني إذا لم تستطع الانتظار.',
    closed: 'لا يوجد أحد من فريقنا متاح الآن. سنكون متاحين مرة أخرى {opening}. اترك رسالة وبريدك الإلكتروني وسنرد عليك حينها.',
    closedUnknown: 'لا يوجد أحد من فريقنا متاح الآن. اترك رسالة وبريدك الإلكتروني وسنرد عليك.',
    open: 'شخص من فريقنا موجود في هذه المحادثة.',
  },
};

export type HandoffNotice = { kind: 'waiting'; position: number; waitMinutes: number } | { kind: 'closed'; opening: string | null } | { kind: 'open' };

/** What the visitor is told about their request for a person, in their language (English when it has no wording). */
export function handoffNotice(language: string | undefined, notice: HandoffNotice): string {
  const w = WORDING[language ?? 'en'] ?? WORDING.en;
  switch (notice.kind) {
    case 'waiting':
      return w.waiting.replace('{position}', String(notice.position)).replace('{wait}', String(notice.waitMinutes));
    case 'closed':
      return notice.opening ? w.closed.replace('{opening}', notice.opening) : w.closedUnknown;
    case 'open':
      return w.open;
  }
}

export const HANDOFF_LANGUAGES = Object.keys(WORDING);
