export { loadConfig, ConfigError, type Config } from "./load-config.js";
export { SETTINGS, type SettingDef, type SettingName } from "./settings.js";
