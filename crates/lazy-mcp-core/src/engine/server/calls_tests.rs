//! A forwarded call's record alone, without an engine: what it keeps, what it
//! sends, and what it becomes when it goes again.

use super::{CallParams, ForwardedCall, QueuedCall, UpstreamParams};
use crate::protocol::methods;
use serde_json::{json, Value};

fn queued(params: CallParams, era_retried: bool) -> QueuedCall {
    QueuedCall::new(
        "c".to_string(),
        Value::from(5),
        methods::TOOLS_CALL.to_string(),
        params,
    )
    .era_retried(era_retried)
}

#[test]
fn read_params_are_sent_and_kept_raw_ones_are_sent_as_they_came() {
    let params = json!({"name": "echo", "_meta": {"progressToken": "p"}});
    let (call, sent) = ForwardedCall::forward(
        queued(CallParams::Parsed(Some(params.clone())), false),
        9,
        0,
    );
    assert!(matches!(&sent, UpstreamParams::Parsed(Some(p)) if *p == params));
    assert_eq!(call.params(), Some(&params));
    assert_eq!(call.tool_name(), Some("echo"));
    assert!(call.reports_progress(Some(&json!("p"))));
    assert!(!call.reports_progress(None) && !call.reports_progress(Some(&json!("q"))));
    assert!(call.may_go_again());

    let raw = CallParams::Raw {
        text: r#"{"name":"echo"}"#.into(),
        progress_token: Some(json!(1)),
        tool: "echo".into(),
    };
    let (call, sent) = ForwardedCall::forward(queued(raw, false), 9, 0);
    assert!(matches!(&sent, UpstreamParams::Raw(text) if &**text == r#"{"name":"echo"}"#));
    assert_eq!(
        call.params(),
        None,
        "a legacy connection's raw params are not kept"
    );
    assert_eq!(call.tool_name(), Some("echo"), "named for a sign-in prompt");
    assert!(call.reports_progress(Some(&json!(1))));
    assert!(
        !call.may_go_again(),
        "without params it cannot be sent again"
    );
}

#[test]
fn asked_again_it_counts_a_round_and_after_an_era_change_it_goes_once_only() {
    let params = CallParams::Parsed(Some(json!({"name": "echo"})));
    let (call, _) = ForwardedCall::forward(queued(params, false), 9, 2);
    assert_eq!((call.client(), call.client_id()), ("c", &Value::from(5)));
    let (again, rounds) = call.ask_again(json!({"name": "echo", "requestState": "s"}));
    assert_eq!(rounds, 3);
    assert!(!again.era_retried);
    assert!(matches!(&again.params, CallParams::Parsed(Some(p)) if p["requestState"] == "s"));

    let (call, _) = ForwardedCall::forward(again, 10, rounds);
    let requeued = call.requeue_after_era_change();
    assert!(requeued.era_retried);
    let (call, _) = ForwardedCall::forward(requeued, 11, 0);
    assert!(!call.may_go_again(), "sent again once already");
    assert_eq!(call.into_reply_target(), ("c".to_string(), Value::from(5)));
}
