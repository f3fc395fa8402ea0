/**
 * A small thesaurus of the everyday words people use for support topics, mapped to the words
 * policy documents tend to use ("money back" -> refund, "vacation" -> annual leave, "boss" ->
 * manager). BM25 only matches words that are present, so without it a visitor who says "coupon"
 * never finds the article titled "Discount codes".
 *
 * It is general vocabulary for the product's verticals (retail customer service, HR, legal
 * information, sales), not tuned to any particular knowledge base. Related words are searched
 * with less weight than the visitor's own words (see KnowledgeService), so a synonym can lift a
 * relevant item but not outrank one that uses the visitor's exact wording.
 *
 * Entries are base forms; the index stemmer takes care of inflections. No entry may be a stop
 * word (it would be dropped).
 */
import { dedupeKey } from './dedupe-key';

/** Words that mean roughly the same in a support question; each one expands to the others. */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  // customer service
  ['refund', 'reimburse', 'reimbursement', 'repay'],
  ['exchange', 'swap', 'replacement'],
  ['parcel', 'package', 'shipment'],
  ['shipping', 'delivery', 'postage', 'dispatch'],
  ['track', 'tracking', 'trace'],
  ['cancel', 'cancellation'],
  ['broken', 'damaged', 'faulty', 'defective', 'cracked'],
  ['fault', 'defect', 'malfunction'],
  ['warranty', 'guarantee'],
  ['discount', 'coupon', 'voucher', 'promo'],
  ['cost', 'fee', 'charge', 'price'],
  ['cheap', 'cheaper', 'lower'],
  ['declined', 'rejected', 'refused', 'denied'],
  ['invoice', 'receipt'],
  ['delete', 'remove', 'erase', 'deactivate'],
  ['password', 'passcode'],
  ['phone', 'telephone', 'call'],
  ['store', 'shop', 'branch'],
  ['subscription', 'membership'],
  ['renew', 'renewal'],
  ['data', 'information', 'info'],
  ['international', 'abroad', 'overseas', 'worldwide'],
  ['customer', 'client', 'buyer'],
  ['bill', 'billing', 'billed'],
  // hr
  ['holiday', 'vacation', 'pto'],
  ['sick', 'ill', 'illness', 'sickness', 'unwell'],
  ['maternity', 'paternity', 'parental'],
  ['pregnant', 'pregnancy', 'maternity'],
  ['bereavement', 'compassionate', 'funeral', 'death', 'died'],
  ['benefit', 'perk'],
  ['insurance', 'cover', 'coverage'],
  ['health', 'medical', 'healthcare'],
  ['dental', 'dentist'],
  ['glasses', 'spectacles', 'vision', 'optician', 'lenses'],
  ['pension', 'retirement', '401k'],
  ['salary', 'wage', 'paycheck', 'payslip', 'payroll'],
  ['remote', 'telework', 'wfh', 'hybrid'],
  ['appraisal', 'review', 'evaluation', 'assessment'],
  ['training', 'course', 'learning', 'education'],
  ['certification', 'qualification', 'certificate'],
  ['harassment', 'bullying', 'discrimination', 'misconduct'],
  ['complaint', 'grievance', 'complain'],
  ['anonymous', 'anonymously', 'confidential'],
  ['resign', 'resignation', 'quit'],
  ['dismissal', 'dismissed', 'termination', 'terminated', 'fired', 'sacked'],
  ['layoff', 'redundancy', 'redundant'],
  ['manager', 'boss', 'supervisor'],
  ['colleague', 'coworker', 'teammate'],
  // legal
  ['lawyer', 'attorney', 'solicitor'],
  ['tenant', 'renter', 'lessee'],
  ['landlord', 'lessor'],
  ['lease', 'tenancy', 'rental'],
  ['sue', 'lawsuit', 'litigation'],
  ['contract', 'agreement'],
  // sales
  ['objection', 'pushback'],
  ['lead', 'prospect'],
  ['expensive', 'pricey', 'costly'],
];

/** Words that imply another topic word, but not the other way round. */
const ONE_WAY: Readonly<Record<string, readonly string[]>> = {
  vacation: ['leave'],
  holiday: ['leave'],
  pto: ['leave'],
  sick: ['leave'],
  maternity: ['leave'],
  paternity: ['leave'],
  baby: ['parental', 'maternity'],
  adopt: ['adoption', 'parental'],
  quit: ['notice'],
  resign: ['notice'],
  arrive: ['delivery'],
  broke: ['broken', 'damaged'],
  stolen: ['missing'],
  lost: ['missing'],
  expensive: ['price'],
  money: ['refund', 'payment'],
  paid: ['pay', 'salary'],
  payday: ['pay', 'salary'],
  bonus: ['salary', 'pay'],
  wfh: ['home'],
  login: ['sign', 'password'],
  reimbursed: ['expenses', 'claim'],
  human: ['contact', 'support', 'team'],
  representative: ['contact', 'support'],
  operator: ['contact', 'support'],
};

/** Multi-word expressions (matched on the question's words, stop words included). */
export const PHRASE_EXPANSIONS: readonly { phrase: readonly string[]; expansions: readonly string[] }[] = [
  { phrase: ['money', 'back'], expansions: ['refund'] },
  { phrase: ['send', 'back'], expansions: ['return'] },
  { phrase: ['sending', 'back'], expansions: ['return'] },
  { phrase: ['sent', 'back'], expansions: ['return'] },
  { phrase: ['bring', 'back'], expansions: ['return'] },
  { phrase: ['time', 'off'], expansions: ['leave', 'holiday'] },
  { phrase: ['day', 'off'], expansions: ['leave', 'holiday'] },
  { phrase: ['days', 'off'], expansions: ['leave', 'holiday'] },
  { phrase: ['sign', 'in'], expansions: ['login', 'password'] },
  { phrase: ['log', 'in'], expansions: ['login', 'sign', 'password'] },
  { phrase: ['logging', 'in'], expansions: ['login', 'sign', 'password'] },
  { phrase: ['passed', 'away'], expansions: ['death', 'died', 'bereavement'] },
  { phrase: ['pass', 'away'], expansions: ['death', 'died', 'bereavement'] },
  { phrase: ['work', 'from', 'home'], expansions: ['remote'] },
  { phrase: ['working', 'from', 'home'], expansions: ['remote'] },
  { phrase: ['pick', 'up'], expansions: ['collect', 'collection'] },
  { phrase: ['opt', 'out'], expansions: ['unsubscribe'] },
  { phrase: ['stopped', 'working'], expansions: ['fault', 'faulty', 'defect'] },
  { phrase: ['other', 'countries'], expansions: ['international', 'abroad'] },
  { phrase: ['another', 'country'], expansions: ['international', 'abroad'] },
  { phrase: ['extra', 'hours'], expansions: ['overtime'] },
  { phrase: ['speak', 'to'], expansions: ['contact'] },
  { phrase: ['talk', 'to'], expansions: ['contact'] },
  { phrase: ['real', 'person'], expansions: ['contact', 'support'] },
  { phrase: ['live', 'agent'], expansions: ['contact', 'support'] },
  { phrase: ['laid', 'off'], expansions: ['layoff', 'redundancy', 'termination'] },
  { phrase: ['charged', 'twice'], expansions: ['duplicate', 'billing', 'payment'] },
  { phrase: ['double', 'charged'], expansions: ['duplicate', 'billing', 'payment'] },
  { phrase: ['promo', 'code'], expansions: ['discount'] },
  { phrase: ['gift', 'voucher'], expansions: ['card'] },
  { phrase: ['too', 'expensive'], expansions: ['price', 'objection'] },
];

let related: Map<string, string[]> | undefined;

/** Related words for a term's dedupe key (see query-terms.ts), or none. */
export function relatedWords(key: string): readonly string[] {
  if (!related) {
    // Built on first use (query-terms.ts and this file import each other).
    related = new Map();
    const map = related;
    const link = (from: string, to: string): void => {
      const k = dedupeKey(from);
      const list = map.get(k) ?? [];
      if (to !== from && !list.includes(to)) list.push(to);
      map.set(k, list);
    };
    for (const group of SYNONYM_GROUPS) for (const a of group) for (const b of group) link(a, b);
    for (const [from, targets] of Object.entries(ONE_WAY)) for (const to of targets) link(from, to);
  }
  return related.get(key) ?? [];
}
