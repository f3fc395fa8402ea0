/** Everything shared by the server and the client: catalogs and wire contracts. */
export * from './catalog/verticals';
export * from './catalog/languages';
export * from './catalog/jurisdictions';
export * from './catalog/providers';
export * from './contracts/rules';
export * from './contracts/http';
export * from './contracts/chat';
export * from './contracts/socket';
export * from './contracts/knowledge';
export * from './contracts/config';
export * from './contracts/auth';
export * from './contracts/analytics';
export * from './contracts/conversations';
export * from './contracts/handoff';
