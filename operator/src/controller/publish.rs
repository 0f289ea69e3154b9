//! Publishing Events (events.k8s.io/v1), idempotently: creating a name that
//! exists already counts as published (a retry after a crash). The Event
//! objects themselves are built in [`crate::event_objects`].

use k8s_openapi::api::events::v1::Event;
use kube::api::PostParams;
use kube::{Api, Client};

pub use crate::event_objects::{Reporter, event};

/// Whether the Event was created now or existed already (published by an
/// earlier attempt of the same report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Published {
    Created,
    AlreadyThere,
}

/// Creates the Event in the namespace of the object it is about;
/// `AlreadyExists` is success.
pub async fn publish(client: &Client, event: &Event) -> Result<Published, kube::Error> {
    let namespace = event.metadata.namespace.as_deref().unwrap_or("default");
    match Api::<Event>::namespaced(client.clone(), namespace)
        .create(&PostParams::default(), event)
        .await
    {
        Ok(_) => Ok(Published::Created),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(Published::AlreadyThere),
        Err(err) => Err(err),
    }
}
