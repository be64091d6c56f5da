export * from './accounts';
export * from './users';
export * from './platform';
export * from './contacts';
export * from './inbox';
export * from './automation';
export * from './channels';
export * from './counters';
