/**
 * Every machine code the platform answers with, spelled once. Clients branch on these strings, so
 * a new code is a contract change: add it here, and `svcError` refuses any spelling not listed.
 */
export const ERROR_CODES = [
  // Input and state of the request
  "invalid_argument",
  "invalid_parameter",
  "unknown_strategy",
  "malformed_csv",
  "empty_data",
  "invalid_range",
  "validation_failed",
  "invalid_transition",
  "slug_taken",
  "session_running",
  "request_exists",
  "request_expired",
  "four_eyes_violation",
  "approved_promotion_required",
  "risk_not_disabled",
  "evidence_retained",
  "results_unavailable",
  "dataset_exists",
  "timeframe_mismatch",
  // Things that are not there
  "bot_not_found",
  "version_not_found",
  "task_not_found",
  "request_not_found",
  "killswitch_not_found",
  "bot_archived",
  // Authentication and authorization
  "unauthenticated",
  "invalid_token",
  "missing_scope",
  "membership_required",
  "user_token_required",
  "machine_token_required",
  "agent_not_allowed",
  "agent_tokens_disabled",
  "m2m_disabled",
  "insufficient_user_authentication",
  "login_unavailable",
  "login_state_invalid",
  "login_code_refused",
  // Kill switch
  "killswitch_engaged",
  "killswitch_not_durable",
  "killswitch_store_unreachable",
  "drill_running",
  "drill_not_found",
  "compliance_run_not_found",
  // Licensing
  "license_lease_unavailable",
  "license_revoked",
  "license_invalid",
  "license_deployment_not_found",
  "device_credential_invalid",
  "renewal_replayed",
  // Tenancy
  "org_not_found",
  "mapping_exists",
  "mapping_not_found",
  // MCP
  "mcp_tool_not_found",
  "mcp_tool_unavailable",
  // A dependency could not answer
  "jwks_unreachable",
  "idp_unreachable",
  "bot_unverifiable",
  "bots_unreachable",
  "artifact_unverifiable",
  "killswitch_unverifiable",
  "killswitch_unreachable",
  "membership_unverifiable",
  "kubernetes_unreachable",
  "kubernetes_refused",
  "kubernetes_not_configured",
  "deployment_not_found",
  "not_implemented",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
