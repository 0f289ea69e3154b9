//! Publishing Events (events.k8s.io/v1), idempotently: creating a name that
//! exists already counts as published (a retry after a crash) when the Event
//! there announces the same transition of the same runtime. The Event
//! objects themselves are built in [`crate::pure::events::object`].
//!
//! A name held by anything else (a forged `reportSequence` made names
//! repeat, or someone created an Event under it) is no proof: the Event is
//! published under [`alternative_name`] instead, and when that is held too,
//! under a name the API server generates. An Event is never lost to a held
//! name; a retry after a crash may then repeat it.

use k8s_openapi::api::events::v1::Event;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client};

use crate::pure::events::announcement::alternative_name;
use crate::pure::events::object::{generated, same_announcement};

/// Whether the Event was created now or existed already (published by an
/// earlier attempt of the same report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Published {
    Created,
    AlreadyThere,
}

/// Creates the Event in the namespace of the object it is about.
pub async fn publish(client: &Client, event: &Event) -> Result<Published, kube::Error> {
    let namespace = event.metadata.namespace.as_deref().unwrap_or("default");
    let events = Api::<Event>::namespaced(client.clone(), namespace);
    if let Some(published) = create(&events, event).await? {
        return Ok(published);
    }
    let name = event.metadata.name.as_deref().unwrap_or_default();
    let note = event.note.as_deref().unwrap_or_default();
    let mut alternative = event.clone();
    alternative.metadata.name = Some(alternative_name(name, note));
    if let Some(published) = create(&events, &alternative).await? {
        return Ok(published);
    }
    tracing::warn!(
        namespace,
        name,
        "both names of an Event are held by other Events; publishing under a generated name"
    );
    events
        .create(&PostParams::default(), &generated(event))
        .await?;
    Ok(Published::Created)
}

/// Creates `event`; `None` when its name is held by something else.
async fn create(events: &Api<Event>, event: &Event) -> Result<Option<Published>, kube::Error> {
    match events.create(&PostParams::default(), event).await {
        Ok(_) => Ok(Some(Published::Created)),
        Err(kube::Error::Api(status)) if status.code == 409 => {
            // Read with an empty patch, which changes nothing: the
            // operator may create and patch Events, not read them.
            let name = event.metadata.name.as_deref().unwrap_or_default();
            let empty = Patch::Merge(serde_json::json!({}));
            match events.patch(name, &PatchParams::default(), &empty).await {
                Ok(existing) => {
                    Ok(same_announcement(&existing, event).then_some(Published::AlreadyThere))
                }
                // Expired meanwhile: the name is free again.
                Err(kube::Error::Api(status)) if status.is_not_found() => {
                    Box::pin(create(events, event)).await
                }
                Err(err) => Err(err),
            }
        }
        Err(err) => Err(err),
    }
}
