export { openInfra, openStores, type Infra, type InfraConfig, type InfraOptions, type Stores } from './infra';
export { runService, startMain, type RunOptions, type Unit } from './run';
