//! Shared by the tool index tests and `examples/tool_index_bench.rs`: the real
//! servers' tool lists (captured by bench/capture-real-tools.mjs), the query set,
//! and a deterministic synthetic server the size of a GitHub API.
#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::path::PathBuf;

#[allow(clippy::panic)] // test support: a missing fixture should stop the run
fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tool_index")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// `(server, tool)` for every tool of the six benchmark servers, in capture order.
pub fn real_tools() -> Vec<(String, Value)> {
    let captured = fixture("real_tools.json");
    let mut out = Vec::new();
    let servers = captured.get("servers").and_then(Value::as_array);
    for server in servers.into_iter().flatten() {
        let name = text(server, "server");
        let tools = server.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            out.push((name.clone(), tool.clone()));
        }
    }
    out
}

pub struct Query {
    pub query: String,
    /// `server/tool` names that count as right, the expected one first.
    pub accept: Vec<String>,
}

/// The query set the ranking was developed on.
pub fn queries() -> Vec<Query> {
    query_set("queries.json")
}

/// The held-out query set, never used to choose synonyms or weights.
pub fn holdout_queries() -> Vec<Query> {
    query_set("queries_holdout.json")
}

/// The second held-out query set (real tools and the synthetic forge),
/// written before the search-quality changes and never used to tune them.
pub fn holdout2_queries() -> Vec<Query> {
    query_set("queries_holdout2.json")
}

/// Development step descriptions (longer, agent-plan style requests): fusion
/// and tool-text choices may be fitted on them (bench/search's held-out sets
/// are not).
pub fn dev_step_queries() -> Vec<Query> {
    query_set("queries_dev_steps.json")
}

fn query_set(file: &str) -> Vec<Query> {
    let set = fixture(file);
    let queries = set.get("queries").and_then(Value::as_array);
    queries
        .into_iter()
        .flatten()
        .map(|q| {
            let mut accept = vec![text(q, "expect")];
            let also = q.get("alsoAccept").and_then(Value::as_array);
            for name in also.into_iter().flatten().filter_map(Value::as_str) {
                accept.push(name.to_string());
            }
            Query {
                query: text(q, "query"),
                accept,
            }
        })
        .collect()
}

/// A resource of the synthetic forge API and what can be done with it.
struct Resource {
    singular: &'static str,
    plural: &'static str,
    scope: &'static str,
    /// The parameter naming one of them, with its JSON type.
    id: (&'static str, &'static str),
    /// Fields a create or update takes.
    fields: &'static [&'static str],
    /// `list`, `get`, `create`, `update`, `delete`, or `name:Description` for
    /// any other operation (`name` may use `{}` for the singular, snake_case).
    actions: &'static [&'static str],
}

const REPO: &str = "in a repository";

const RESOURCES: &[Resource] = &[
    Resource { singular: "repository", plural: "repositories", scope: "for a user or organization", id: ("repo", "string"), fields: &["name", "description", "private", "homepage", "default_branch"], actions: &["list", "get", "create", "update", "delete", "fork_{}:Fork a repository into your account or an organization", "star_{}:Star a repository for the authenticated user", "transfer_{}:Transfer a repository to another user or organization", "archive_{}:Archive a repository so it becomes read-only"] },
    Resource { singular: "branch", plural: "branches", scope: REPO, id: ("branch", "string"), fields: &["from_branch", "sha"], actions: &["list", "get", "create", "delete", "rename_{}:Rename a branch and retarget its open pull requests", "get_{}_protection:Get the protection rules of a branch", "update_{}_protection:Require reviews and status checks before merging into a branch"] },
    Resource { singular: "commit", plural: "commits", scope: REPO, id: ("sha", "string"), fields: &[], actions: &["list", "get", "compare_commits:Compare two commits, branches or tags and list the changed files"] },
    Resource { singular: "tag", plural: "tags", scope: REPO, id: ("tag", "string"), fields: &["sha", "message"], actions: &["list", "get", "create", "delete"] },
    Resource { singular: "release", plural: "releases", scope: REPO, id: ("release_id", "integer"), fields: &["tag_name", "name", "body", "draft", "prerelease"], actions: &["list", "get", "create", "update", "delete", "get_latest_release:Get the latest published release of a repository", "generate_release_notes:Generate release notes from merged pull requests between two tags"] },
    Resource { singular: "release asset", plural: "release assets", scope: "of a release", id: ("asset_id", "integer"), fields: &["name", "label"], actions: &["list", "delete", "upload_{}:Upload a binary file as an asset of a release", "download_{}:Download the binary of a release asset"] },
    Resource { singular: "pull request", plural: "pull requests", scope: REPO, id: ("pull_number", "integer"), fields: &["title", "body", "head", "base", "draft"], actions: &["list", "get", "create", "update", "merge_{}:Merge a pull request using a merge commit, squash or rebase", "close_{}:Close a pull request without merging it", "list_pull_request_files:List the files changed by a pull request", "get_pull_request_diff:Get the unified diff of a pull request", "request_reviewers:Request reviews on a pull request from users or teams", "update_pull_request_branch:Bring a pull request branch up to date with its base branch"] },
    Resource { singular: "pull request review", plural: "pull request reviews", scope: "of a pull request", id: ("review_id", "integer"), fields: &["body", "event"], actions: &["list", "create", "submit_{}:Submit a pending review as approve, request changes or comment", "dismiss_{}:Dismiss a review so it no longer blocks merging"] },
    Resource { singular: "review comment", plural: "review comments", scope: "on a pull request diff", id: ("comment_id", "integer"), fields: &["body", "path", "line"], actions: &["list", "create", "update", "delete", "reply_to_review_comment:Reply to a comment on a line of a pull request diff"] },
    Resource { singular: "issue", plural: "issues", scope: REPO, id: ("issue_number", "integer"), fields: &["title", "body", "assignees", "labels", "milestone"], actions: &["list", "get", "create", "update", "close_{}:Close an issue as completed or not planned", "lock_{}:Lock the conversation of an issue", "search_issues:Search issues and pull requests across repositories with the search syntax", "assign_{}:Assign users to an issue"] },
    Resource { singular: "issue comment", plural: "issue comments", scope: "on an issue or pull request", id: ("comment_id", "integer"), fields: &["body"], actions: &["list", "create", "update", "delete"] },
    Resource { singular: "label", plural: "labels", scope: REPO, id: ("name", "string"), fields: &["name", "color", "description"], actions: &["list", "get", "create", "update", "delete", "add_labels_to_issue:Add labels to an issue or pull request", "remove_label_from_issue:Remove a label from an issue or pull request"] },
    Resource { singular: "milestone", plural: "milestones", scope: REPO, id: ("milestone_number", "integer"), fields: &["title", "description", "due_on", "state"], actions: &["list", "get", "create", "update", "delete"] },
    Resource { singular: "workflow", plural: "workflows", scope: "of GitHub Actions in a repository", id: ("workflow_id", "string"), fields: &[], actions: &["list", "get", "enable_{}:Enable a disabled Actions workflow", "disable_{}:Disable an Actions workflow so it no longer runs", "dispatch_{}:Manually trigger a workflow_dispatch event with inputs"] },
    Resource { singular: "workflow run", plural: "workflow runs", scope: "of GitHub Actions", id: ("run_id", "integer"), fields: &[], actions: &["list", "get", "delete", "rerun_{}:Re-run all jobs of a workflow run", "cancel_{}:Cancel a queued or in-progress workflow run", "get_workflow_run_logs:Download the logs archive of a workflow run"] },
    Resource { singular: "job", plural: "jobs", scope: "of a workflow run", id: ("job_id", "integer"), fields: &[], actions: &["list", "get", "get_job_logs:Get the log output of one job of a workflow run"] },
    Resource { singular: "artifact", plural: "artifacts", scope: "produced by workflow runs", id: ("artifact_id", "integer"), fields: &[], actions: &["list", "delete", "download_{}:Download an artifact produced by a workflow run as a zip archive"] },
    Resource { singular: "actions secret", plural: "actions secrets", scope: "of a repository", id: ("secret_name", "string"), fields: &["encrypted_value", "key_id"], actions: &["list", "delete", "set_actions_secret:Create or update an encrypted secret used by workflows"] },
    Resource { singular: "actions variable", plural: "actions variables", scope: "of a repository", id: ("variable_name", "string"), fields: &["value"], actions: &["list", "create", "update", "delete"] },
    Resource { singular: "environment", plural: "environments", scope: "for deployments of a repository", id: ("environment_name", "string"), fields: &["wait_timer", "reviewers"], actions: &["list", "get", "create", "delete"] },
    Resource { singular: "deployment", plural: "deployments", scope: REPO, id: ("deployment_id", "integer"), fields: &["ref", "environment", "description"], actions: &["list", "create", "list_deployment_statuses:List the status updates of a deployment", "create_deployment_status:Report a deployment as pending, success, failure or error"] },
    Resource { singular: "webhook", plural: "webhooks", scope: "of a repository", id: ("hook_id", "integer"), fields: &["url", "events", "active", "content_type"], actions: &["list", "get", "create", "update", "delete", "ping_{}:Send a ping event to a webhook", "list_webhook_deliveries:List recent deliveries of a webhook with their response codes"] },
    Resource { singular: "deploy key", plural: "deploy keys", scope: "of a repository", id: ("key_id", "integer"), fields: &["title", "key", "read_only"], actions: &["list", "create", "delete"] },
    Resource { singular: "collaborator", plural: "collaborators", scope: "of a repository", id: ("username", "string"), fields: &["permission"], actions: &["list", "add_{}:Invite a user to collaborate on a repository with a permission level", "remove_{}:Remove a user's access to a repository", "get_collaborator_permission:Get the permission level a user has on a repository"] },
    Resource { singular: "team", plural: "teams", scope: "in an organization", id: ("team_slug", "string"), fields: &["name", "description", "privacy"], actions: &["list", "get", "create", "update", "delete", "add_team_member:Add a user to a team or update their role", "remove_team_member:Remove a user from a team", "list_team_members:List the members of a team"] },
    Resource { singular: "organization", plural: "organizations", scope: "of the authenticated user", id: ("org", "string"), fields: &["billing_email", "description"], actions: &["list", "get", "update", "list_org_members:List the members of an organization", "remove_org_member:Remove a member from an organization"] },
    Resource { singular: "gist", plural: "gists", scope: "of the authenticated user", id: ("gist_id", "string"), fields: &["description", "files", "public"], actions: &["list", "get", "create", "update", "delete", "fork_{}:Fork a gist", "star_{}:Star a gist"] },
    Resource { singular: "project", plural: "projects", scope: "of an organization or user", id: ("project_number", "integer"), fields: &["title", "readme", "public"], actions: &["list", "get", "create", "update", "delete"] },
    Resource { singular: "project item", plural: "project items", scope: "in a project board", id: ("item_id", "string"), fields: &["content_id", "field_id", "value"], actions: &["list", "delete", "add_project_item:Add an issue or pull request to a project board", "update_project_item_field:Set a field such as status or priority on a project item"] },
    Resource { singular: "discussion", plural: "discussions", scope: REPO, id: ("discussion_number", "integer"), fields: &["title", "body", "category_id"], actions: &["list", "get", "create", "add_discussion_comment:Comment on a discussion or reply to a comment"] },
    Resource { singular: "notification", plural: "notifications", scope: "of the authenticated user", id: ("thread_id", "string"), fields: &[], actions: &["list", "get_notification_thread:Get one notification thread", "mark_notification_read:Mark a notification thread as read", "mark_all_notifications_read:Mark all notifications as read", "set_thread_subscription:Subscribe to or ignore a notification thread"] },
    Resource { singular: "code scanning alert", plural: "code scanning alerts", scope: REPO, id: ("alert_number", "integer"), fields: &["state", "dismissed_reason"], actions: &["list", "get", "update"] },
    Resource { singular: "dependabot alert", plural: "dependabot alerts", scope: "about vulnerable dependencies of a repository", id: ("alert_number", "integer"), fields: &["state", "dismissed_reason"], actions: &["list", "get", "dismiss_{}:Dismiss a Dependabot alert with a reason"] },
    Resource { singular: "secret scanning alert", plural: "secret scanning alerts", scope: "about leaked credentials in a repository", id: ("alert_number", "integer"), fields: &["state", "resolution"], actions: &["list", "get", "resolve_{}:Resolve a secret scanning alert as revoked, false positive or used in tests"] },
    Resource { singular: "check run", plural: "check runs", scope: "for a commit", id: ("check_run_id", "integer"), fields: &["name", "head_sha", "status", "conclusion"], actions: &["list", "get", "create", "rerequest_{}:Ask for a check run to be run again"] },
    Resource { singular: "file", plural: "files", scope: "in a repository", id: ("path", "string"), fields: &["content", "message", "branch", "sha"], actions: &["get_file_contents:Get the contents of a file or directory from a repository at a ref", "create_or_update_file:Create or update a single file in a repository with a commit", "delete_file:Delete a file from a repository with a commit", "push_files:Push several files to a branch in one commit"] },
    Resource { singular: "code", plural: "code", scope: "across repositories", id: ("q", "string"), fields: &[], actions: &["search_code:Search source code across repositories with the code search syntax", "search_repositories:Search repositories by name, topic, language or stars", "search_users:Search users by name, location or followers", "search_commits:Search commit messages across repositories"] },
    Resource { singular: "user", plural: "users", scope: "on the platform", id: ("username", "string"), fields: &["name", "bio", "blog"], actions: &["get", "get_me:Get the profile of the authenticated user", "update_me:Update the profile of the authenticated user", "list_followers:List the followers of a user", "follow_user:Follow a user"] },
    Resource { singular: "ssh key", plural: "ssh keys", scope: "of the authenticated user", id: ("key_id", "integer"), fields: &["title", "key"], actions: &["list", "create", "delete", "list_gpg_keys:List the GPG keys used to verify signed commits"] },
    Resource { singular: "codespace", plural: "codespaces", scope: "of the authenticated user", id: ("codespace_name", "string"), fields: &["machine", "ref"], actions: &["list", "create", "delete", "start_{}:Start a stopped codespace", "stop_{}:Stop a running codespace"] },
    Resource { singular: "ruleset", plural: "rulesets", scope: "of a repository", id: ("ruleset_id", "integer"), fields: &["name", "target", "enforcement", "rules"], actions: &["list", "get", "create", "update", "delete"] },
    Resource { singular: "autolink", plural: "autolinks", scope: "of a repository", id: ("autolink_id", "integer"), fields: &["key_prefix", "url_template"], actions: &["list", "create", "delete"] },
    Resource { singular: "pages site", plural: "pages sites", scope: "of a repository", id: ("repo", "string"), fields: &["source", "cname", "https_enforced"], actions: &["get", "create", "update", "request_pages_build:Request a new build of the repository's Pages site"] },
    Resource { singular: "traffic", plural: "traffic", scope: "of a repository", id: ("repo", "string"), fields: &[], actions: &["get_repository_views:Get page views of a repository over the last 14 days", "get_repository_clones:Get clone counts of a repository over the last 14 days", "get_popular_paths:Get the most visited paths of a repository"] },
    Resource { singular: "reaction", plural: "reactions", scope: "on an issue or comment", id: ("reaction_id", "integer"), fields: &["content"], actions: &["list", "create", "delete"] },
];

fn snake(words: &str) -> String {
    words.replace(' ', "_")
}

fn a_or_an(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn field_schema(name: &str, about: &str) -> Value {
    let (kind, description) = match name {
        "private" | "draft" | "prerelease" | "active" | "read_only" | "public"
        | "https_enforced" => (
            "boolean",
            format!("Whether the {about} is {}", name.replace('_', " ")),
        ),
        "assignees" | "labels" | "events" | "reviewers" | "files" | "rules" => (
            "array",
            format!("The {} of the {about}", name.replace('_', " ")),
        ),
        "milestone" | "line" | "wait_timer" => (
            "integer",
            format!("The {} of the {about}", name.replace('_', " ")),
        ),
        _ => (
            "string",
            format!("The {} of the {about}", name.replace('_', " ")),
        ),
    };
    if kind == "array" {
        json!({"type": "array", "items": {"type": "string"}, "description": description})
    } else {
        json!({"type": kind, "description": description})
    }
}

fn schema(resource: &Resource, action: &str) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    if resource.scope != "of the authenticated user"
        && resource.scope != "across repositories"
        && resource.scope != "on the platform"
    {
        properties.insert("owner".into(), json!({"type": "string", "description": "Account owner of the repository (user or organization)"}));
        properties.insert(
            "repo".into(),
            json!({"type": "string", "description": "Repository name, without the .git extension"}),
        );
        required.extend(["owner", "repo"]);
    }
    let (id, id_type) = resource.id;
    if action != "list" && action != "create" && !properties.contains_key(id) {
        properties.insert(id.into(), json!({"type": id_type, "description": format!("The {} that identifies the {}", id.replace('_', " "), resource.singular)}));
        required.push(id);
    }
    match action {
        "list" => {
            properties.insert("state".into(), json!({"type": "string", "enum": ["open", "closed", "all"], "description": "Filter by state"}));
            properties.insert("sort".into(), json!({"type": "string", "enum": ["created", "updated"], "description": "What to sort results by"}));
            properties.insert("page".into(), json!({"type": "number", "minimum": 1, "description": "Page number for pagination (min 1)"}));
            properties.insert("perPage".into(), json!({"type": "number", "minimum": 1, "maximum": 100, "description": "Results per page for pagination (min 1, max 100)"}));
        }
        "create" | "update" => {
            for field in resource.fields {
                properties.insert((*field).into(), field_schema(field, resource.singular));
            }
            if action == "create" {
                if let Some(first) = resource.fields.first() {
                    required.push(first);
                }
            }
        }
        _ => {
            for field in resource.fields.iter().take(2) {
                properties.insert((*field).into(), field_schema(field, resource.singular));
            }
        }
    }
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// `count` tools of a synthetic code-hosting API (repositories, pull requests,
/// issues, Actions, …) with GitHub-like names, descriptions and input schemas;
/// deterministic. Past the ~200 distinct operations it repeats them with a
/// numeric suffix.
pub fn synthetic_forge_tools(count: usize) -> Vec<Value> {
    let mut distinct = Vec::new();
    for resource in RESOURCES {
        let s = snake(resource.singular);
        let p = snake(resource.plural);
        let article = a_or_an(resource.singular);
        for action in resource.actions {
            let (name, description, kind) = match *action {
                "list" => (
                    format!("list_{p}"),
                    format!(
                        "List {} {}. Supports pagination and filtering by state.",
                        resource.plural, resource.scope
                    ),
                    "list",
                ),
                "get" => (
                    format!("get_{s}"),
                    format!(
                        "Get details of a specific {} {}.",
                        resource.singular, resource.scope
                    ),
                    "get",
                ),
                "create" => (
                    format!("create_{s}"),
                    format!("Create a new {} {}.", resource.singular, resource.scope),
                    "create",
                ),
                "update" => (
                    format!("update_{s}"),
                    format!(
                        "Update an existing {} {}. Only the given fields change.",
                        resource.singular, resource.scope
                    ),
                    "update",
                ),
                "delete" => (
                    format!("delete_{s}"),
                    format!(
                        "Delete {article} {} {}. This cannot be undone.",
                        resource.singular, resource.scope
                    ),
                    "delete",
                ),
                other => {
                    let (name, description) = other.split_once(':').unwrap_or((other, other));
                    (name.replace("{}", &s), format!("{description}."), "other")
                }
            };
            let title = name
                .split('_')
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                })
                .collect::<Vec<_>>()
                .join(" ");
            let read_only = matches!(kind, "list" | "get")
                || name.starts_with("get_")
                || name.starts_with("list_")
                || name.starts_with("search_");
            distinct.push(json!({
                "name": name,
                "description": description,
                "inputSchema": schema(resource, kind),
                "annotations": {"title": title, "readOnlyHint": read_only}
            }));
        }
    }
    (0..count)
        .filter_map(|i| {
            let round = i / distinct.len().max(1);
            let mut tool = distinct.get(i % distinct.len().max(1))?.clone();
            if round > 0 {
                let name = format!("{}_{round}", text(&tool, "name"));
                if let Some(object) = tool.as_object_mut() {
                    object.insert("name".into(), Value::String(name));
                }
            }
            Some(tool)
        })
        .collect()
}

/// Name of the synthetic server in the mixed index.
pub const SYNTHETIC_SERVER: &str = "forge";
