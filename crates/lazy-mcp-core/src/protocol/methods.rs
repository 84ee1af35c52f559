//! Every MCP method name the core uses, one definition each. Match on these
//! (`methods::TOOLS_CALL => …`), never on a string literal of a method.

pub const COMPLETION_COMPLETE: &str = "completion/complete";
pub const ELICITATION_CREATE: &str = "elicitation/create";
pub const INITIALIZE: &str = "initialize";
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
pub const NOTIFICATIONS_CANCELLED: &str = "notifications/cancelled";
pub const NOTIFICATIONS_INITIALIZED: &str = "notifications/initialized";
pub const NOTIFICATIONS_MESSAGE: &str = "notifications/message";
pub const NOTIFICATIONS_PROGRESS: &str = "notifications/progress";
pub const NOTIFICATIONS_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
pub const NOTIFICATIONS_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
pub const NOTIFICATIONS_RESOURCES_UPDATED: &str = "notifications/resources/updated";
pub const NOTIFICATIONS_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
pub const NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
    "notifications/subscriptions/acknowledged";
pub const NOTIFICATIONS_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
pub const PING: &str = "ping";
pub const PROMPTS_GET: &str = "prompts/get";
pub const PROMPTS_LIST: &str = "prompts/list";
pub const RESOURCES_LIST: &str = "resources/list";
pub const RESOURCES_READ: &str = "resources/read";
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
pub const ROOTS_LIST: &str = "roots/list";
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
pub const SERVER_DISCOVER: &str = "server/discover";
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
pub const TOOLS_CALL: &str = "tools/call";
pub const TOOLS_LIST: &str = "tools/list";
