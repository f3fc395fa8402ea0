/**
 * What a visitor reads when a budget stops the assistant, in each of the 11 offered languages
 * (written for this project). The chat page shows the message as the reply.
 */
const BUDGET_EXHAUSTED: Readonly<Record<string, string>> = Object.freeze({
  en: 'The assistant has reached its limit for this month. Please try again next month, or contact us another way.',
  es: 'El asistente ha alcanzado su límite de este mes. Vuelva a intentarlo el mes que viene o contáctenos por otra vía.',
  fr: "L'assistant a atteint sa limite pour ce mois-ci. Réessayez le mois prochain ou contactez-nous par un autre moyen.",
  de: 'Der Assistent hat sein Limit für diesen Monat erreicht. Bitte versuchen Sie es im nächsten Monat erneut oder kontaktieren Sie uns auf anderem Weg.',
  zh: '助手本月的使用额度已用完。请下个月再试，或通过其他方式联系我们。',
  ja: 'アシスタントは今月の上限に達しました。来月もう一度お試しいただくか、別の方法でお問い合わせください。',
  ko: '어시스턴트가 이번 달 한도에 도달했습니다. 다음 달에 다시 시도하시거나 다른 방법으로 문의해 주세요.',
  hi: 'सहायक इस महीने की अपनी सीमा तक पहुँच गया है। कृपया अगले महीने फिर से कोशिश करें, या किसी और तरीके से हमसे संपर्क करें।',
  pt: 'O assistente atingiu o limite deste mês. Tente novamente no próximo mês ou entre em contato conosco de outra forma.',
  it: "L'assistente ha raggiunto il limite per questo mese. Riprova il mese prossimo oppure contattaci in un altro modo.",
  ar: 'وصل المساعد إلى الحد المسموح به لهذا الشهر. يرجى المحاولة مرة أخرى في الشهر القادم، أو التواصل معنا بطريقة أخرى.',
});

const VISITOR_QUOTA: Readonly<Record<string, string>> = Object.freeze({
  en: "You have reached today's limit for the assistant. Please try again tomorrow.",
  es: 'Ha alcanzado el límite de hoy para el asistente. Vuelva a intentarlo mañana.',
  fr: "Vous avez atteint la limite du jour pour l'assistant. Réessayez demain.",
  de: 'Sie haben das heutige Limit für den Assistenten erreicht. Bitte versuchen Sie es morgen erneut.',
  zh: '您今天使用助手的额度已用完。请明天再试。',
  ja: '本日のアシスタント利用上限に達しました。明日もう一度お試しください。',
  ko: '오늘 어시스턴트 사용 한도에 도달했습니다. 내일 다시 시도해 주세요.',
  hi: 'आप आज के लिए सहायक की सीमा तक पहुँच गए हैं। कृपया कल फिर से कोशिश करें।',
  pt: 'Você atingiu o limite de hoje para o assistente. Tente novamente amanhã.',
  it: "Hai raggiunto il limite di oggi per l'assistente. Riprova domani.",
  ar: 'لقد وصلت إلى الحد اليومي لاستخدام المساعد. يرجى المحاولة مرة أخرى غدًا.',
});

/** "The assistant has reached its limit for this month…" in the visitor's language (English for another). */
export function budgetExhaustedMessage(languageCode: string): string {
  return BUDGET_EXHAUSTED[languageCode] ?? BUDGET_EXHAUSTED.en;
}

/** The visitor's own daily token limit is spent. */
export function visitorQuotaMessage(languageCode: string): string {
  return VISITOR_QUOTA[languageCode] ?? VISITOR_QUOTA.en;
}

export const LIMIT_MESSAGE_LANGUAGES = Object.keys(BUDGET_EXHAUSTED);
