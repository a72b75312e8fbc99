export { loadConfig, ConfigError, type Config, type LogFormat } from "./load-config.js";
export { SETTINGS, type SettingDef, type SettingName } from "./settings.js";
