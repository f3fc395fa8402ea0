/**
 * Jurisdictions the legal vertical can answer for. The client shows them in the jurisdiction
 * modal (with a second step for sub-regions where laws differ inside the country); the server
 * puts the chosen jurisdiction, its legal system and notes into the prompt.
 */

export type JurisdictionCode = 'US' | 'UK' | 'EU' | 'IN' | 'JP' | 'AE';

export type LegalSystem =
  | 'Common Law'
  | 'Civil Law'
  | 'Common Law with Civil influences'
  | 'Mixed civil/Sharia/common';

export type SubRegionLabel = 'State' | 'Region' | 'Emirate';

export interface Jurisdiction {
  code: JurisdictionCode;
  name: string;
  /** Flag emoji. */
  flag: string;
  legalSystem: LegalSystem;
  /** Languages in which the law is mainly published / used in court. */
  languages: string[];
  description: string;
  /** Short, factual notes on notable features of the legal landscape. */
  specificFeatures: string[];
  /** What a sub-region is called here; absent when there are none to choose. */
  subRegionLabel?: SubRegionLabel;
  /** Sub-regions the visitor picks from in step 2 of the modal; empty when none. */
  subRegions: string[];
  /** Caution shown with the legal notice when laws differ within the jurisdiction. */
  warning?: string;
}

/** All 50 US states, alphabetically (the District of Columbia and territories are not states). */
export const US_STATES: readonly string[] = Object.freeze([
  'Alabama',
  'Alaska',
  'Arizona',
  'Arkansas',
  'California',
  'Colorado',
  'Connecticut',
  'Delaware',
  'Florida',
  'Georgia',
  'Hawaii',
  'Idaho',
  'Illinois',
  'Indiana',
  'Iowa',
  'Kansas',
  'Kentucky',
  'Louisiana',
  'Maine',
  'Maryland',
  'Massachusetts',
  'Michigan',
  'Minnesota',
  'Mississippi',
  'Missouri',
  'Montana',
  'Nebraska',
  'Nevada',
  'New Hampshire',
  'New Jersey',
  'New Mexico',
  'New York',
  'North Carolina',
  'North Dakota',
  'Ohio',
  'Oklahoma',
  'Oregon',
  'Pennsylvania',
  'Rhode Island',
  'South Carolina',
  'South Dakota',
  'Tennessee',
  'Texas',
  'Utah',
  'Vermont',
  'Virginia',
  'Washington',
  'West Virginia',
  'Wisconsin',
  'Wyoming',
]);

/** The UK's three separate legal jurisdictions. */
export const UK_REGIONS: readonly string[] = Object.freeze([
  'England & Wales',
  'Scotland',
  'Northern Ireland',
]);

/** The seven emirates of the UAE. */
export const UAE_EMIRATES: readonly string[] = Object.freeze([
  'Abu Dhabi',
  'Dubai',
  'Sharjah',
  'Ajman',
  'Umm Al Quwain',
  'Ras Al Khaimah',
  'Fujairah',
]);

export const JURISDICTIONS: readonly Jurisdiction[] = Object.freeze([
  {
    code: 'US',
    name: 'United States',
    flag: '🇺🇸',
    legalSystem: 'Common Law',
    languages: ['English'],
    description:
      'Federal common-law system: federal law applies nationwide, while each of the 50 states has its own constitution, statutes and courts.',
    specificFeatures: [
      'Federal and state courts run side by side; most contract, tort, family, property and criminal law is state law',
      'The U.S. Constitution and Bill of Rights limit both federal and state government',
      'Louisiana’s private law is rooted in the civil-law tradition',
      'No single federal privacy law: sector laws (e.g. HIPAA, COPPA) plus state laws such as the California Consumer Privacy Act (CCPA/CPRA)',
      'Employment is at-will by default in every state except Montana',
    ],
    subRegionLabel: 'State',
    subRegions: [...US_STATES],
    warning: 'Laws vary significantly by state. Information may not apply in your state.',
  },
  {
    code: 'UK',
    name: 'United Kingdom',
    flag: '🇬🇧',
    legalSystem: 'Common Law',
    languages: ['English'],
    description:
      'Common-law system with three distinct legal jurisdictions: England & Wales, Scotland and Northern Ireland.',
    specificFeatures: [
      'Parliamentary sovereignty; no single codified constitution',
      'Scots law is a mixed system combining civil-law and common-law traditions, with its own courts',
      'The Supreme Court of the United Kingdom is the final court of appeal for civil cases in all three jurisdictions',
      'Personal data is governed by the UK GDPR and the Data Protection Act 2018',
      'Core employment rights come from the Employment Rights Act 1996 and the Equality Act 2010 (Great Britain)',
    ],
    subRegionLabel: 'Region',
    subRegions: [...UK_REGIONS],
  },
  {
    code: 'EU',
    name: 'European Union',
    flag: '🇪🇺',
    legalSystem: 'Civil Law',
    languages: [
      'Bulgarian',
      'Croatian',
      'Czech',
      'Danish',
      'Dutch',
      'English',
      'Estonian',
      'Finnish',
      'French',
      'German',
      'Greek',
      'Hungarian',
      'Irish',
      'Italian',
      'Latvian',
      'Lithuanian',
      'Maltese',
      'Polish',
      'Portuguese',
      'Romanian',
      'Slovak',
      'Slovenian',
      'Spanish',
      'Swedish',
    ],
    description:
      'Supranational legal order over 27 member states, mostly from the civil-law tradition; EU law takes precedence over conflicting national law.',
    specificFeatures: [
      'General Data Protection Regulation (GDPR, Regulation (EU) 2016/679) governs the processing of personal data',
      'Regulations apply directly in every member state; directives must be transposed into national law',
      'The Court of Justice of the EU gives binding interpretations of EU law',
      'Consumers generally have a 14-day right to withdraw from online and distance purchases',
      'The AI Act (Regulation (EU) 2024/1689) sets risk-based rules for AI systems',
      'National law still governs many areas (e.g. family, criminal and most contract law), and Ireland and Malta have common-law traditions',
    ],
    subRegions: [],
  },
  {
    code: 'IN',
    name: 'India',
    flag: '🇮🇳',
    legalSystem: 'Common Law with Civil influences',
    languages: ['English', 'Hindi'],
    description:
      'Common-law system inherited from British rule, with codified statutes and a written constitution; English is the language of the higher courts.',
    specificFeatures: [
      'The Constitution of India (1950) is the supreme law, with judicial review by the Supreme Court and High Courts',
      'Criminal law was recodified from 1 July 2024: Bharatiya Nyaya Sanhita, Bharatiya Nagarik Suraksha Sanhita and Bharatiya Sakshya Adhiniyam',
      'Digital Personal Data Protection Act 2023 governs digital personal data',
      'Consumer Protection Act 2019 provides consumer commissions at district, state and national level',
      'Family matters such as marriage and inheritance are largely governed by religion-based personal laws',
    ],
    subRegions: [],
  },
  {
    code: 'JP',
    name: 'Japan',
    flag: '🇯🇵',
    legalSystem: 'Civil Law',
    languages: ['Japanese', 'English'],
    description:
      'Codified civil-law system modelled on German and French law, with post-war constitutional and public-law influences from the United States.',
    specificFeatures: [
      'The main codes are the Constitution, Civil Code, Commercial Code, Penal Code and the Codes of Civil and Criminal Procedure',
      'Act on the Protection of Personal Information (APPI) governs personal data',
      'The Labor Standards Act sets minimum working conditions',
      'The Supreme Court of Japan has the power of judicial review',
      'Only the Japanese text of laws is authoritative; official English translations are for reference',
    ],
    subRegions: [],
  },
  {
    code: 'AE',
    name: 'United Arab Emirates',
    flag: '🇦🇪',
    legalSystem: 'Mixed civil/Sharia/common',
    languages: ['Arabic', 'English'],
    description:
      'Federation of seven emirates with a mainly civil-law federal system, Sharia as a principal source of legislation, and common-law-based financial free zones.',
    specificFeatures: [
      'Federal civil and commercial codes, with Sharia principles applied especially in personal status matters',
      'Non-Muslims may be subject to the civil personal status law (Federal Decree-Law No. 41 of 2022)',
      'The DIFC (Dubai) and ADGM (Abu Dhabi) financial free zones have their own common-law-based courts and laws',
      'Private-sector employment is governed by Federal Decree-Law No. 33 of 2021',
      'Personal data is governed by Federal Decree-Law No. 45 of 2021, outside free zones with their own data laws',
      'Arabic is the official language of the onshore courts',
    ],
    subRegionLabel: 'Emirate',
    subRegions: [...UAE_EMIRATES],
    warning:
      'Laws vary by emirate and free zone (such as DIFC and ADGM). Information may not apply in your location.',
  },
] satisfies Jurisdiction[]);

/** Other names API clients use for a jurisdiction: ISO 3166 codes and common abbreviations. */
const JURISDICTION_ALIASES: Readonly<Record<string, JurisdictionCode>> = { GB: 'UK', USA: 'US', UAE: 'AE', IND: 'IN', JPN: 'JP', ARE: 'AE', GBR: 'UK' };

export function getJurisdiction(code: string): Jurisdiction | undefined {
  const upper = code.trim().toUpperCase();
  const wanted = JURISDICTION_ALIASES[upper] ?? upper;
  return JURISDICTIONS.find((j) => j.code === wanted);
}

/** USPS codes of the states, in US_STATES order. */
const US_STATE_CODES = 'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(' ');

/** Codes a sub-region is also known by (ISO 3166-2 without the country prefix, USPS for states), per jurisdiction. */
const SUB_REGION_CODES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  US: Object.fromEntries(US_STATE_CODES.map((c, i) => [c, US_STATES[i]])),
  UK: { ENG: 'England & Wales', WLS: 'England & Wales', EAW: 'England & Wales', ENGLAND: 'England & Wales', WALES: 'England & Wales', 'ENGLAND AND WALES': 'England & Wales', SCT: 'Scotland', NIR: 'Northern Ireland' },
  AE: { AZ: 'Abu Dhabi', DU: 'Dubai', SH: 'Sharjah', AJ: 'Ajman', UQ: 'Umm Al Quwain', RK: 'Ras Al Khaimah', FU: 'Fujairah' },
};
const ISO_PREFIX: Readonly<Record<string, string[]>> = { US: ['US-'], UK: ['GB-', 'UK-'], AE: ['AE-'] };

/**
 * The sub-region of `jurisdiction` that `value` names, as the catalog spells it: its name in any
 * case ("california"), or its code ("CA", "US-CA", "GB-SCT", "AE-DU"); undefined when none.
 */
export function findSubRegion(jurisdiction: Jurisdiction, value: string | undefined | null): string | undefined {
  if (typeof value !== 'string') return undefined;
  const wanted = value.trim().replace(/\s+/g, ' ');
  if (wanted === '') return undefined;
  const byName = jurisdiction.subRegions.find((r) => r.toLowerCase() === wanted.toLowerCase());
  if (byName) return byName;
  let code = wanted.toUpperCase();
  for (const prefix of ISO_PREFIX[jurisdiction.code] ?? []) if (code.startsWith(prefix)) code = code.slice(prefix.length);
  return SUB_REGION_CODES[jurisdiction.code]?.[code];
}

export function isJurisdictionCode(code: string): code is JurisdictionCode {
  return JURISDICTIONS.some((j) => j.code === code);
}

/** True when the visitor must also pick a sub-region (US, UK, AE). */
export function requiresSubRegion(code: string): boolean {
  return (getJurisdiction(code)?.subRegions.length ?? 0) > 0;
}
