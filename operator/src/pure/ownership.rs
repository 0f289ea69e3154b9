//! Taking back a list that someone else changed.
//!
//! Server-side apply never removes a field that another field manager owns.
//! For most drift that is fine: a forced apply takes over a changed value.
//! Lists whose items are keyed (Service ports by port and protocol, env vars
//! by name, volumes by name, ...) are different: `kubectl edit` changing the
//! Service port from 9000 to 1234 leaves an item *keyed* 1234, owned by
//! kubectl; the operator's apply adds its 9000 item beside it instead of
//! replacing it (here even refused: two ports named `http`), and an item
//! someone added to an env list stays forever.
//!
//! The remedy keeps server-side apply as the only way the operator writes
//! content: it moves every other manager's ownership of that one list into
//! the operator's own apply entry (a `metadata.managedFields` patch guarded by
//! the resourceVersion, which changes no content), so that the next apply,
//! which does not mention the foreign items, prunes them.

use serde_json::{Map, Value, json};

/// The JSON pointer of the innermost list on `pointer` (a path into
/// `observed`, as [`crate::pure::drift::difference`] reports it), if any.
pub fn innermost_list(observed: &Value, pointer: &str) -> Option<String> {
    let mut node = observed;
    let mut here = String::new();
    let mut list = matches!(node, Value::Array(_)).then(String::new);
    for token in pointer.split('/').skip(1) {
        let next = match node {
            Value::Object(map) => map.get(&unescape(token)),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        // The difference may name a field the observed object lacks.
        let Some(next) = next else { break };
        node = next;
        here.push('/');
        here.push_str(token);
        if node.is_array() {
            list = Some(here.clone());
        }
    }
    list
}

/// The `metadata.managedFields` of `observed` with every other manager's
/// ownership of the list at `list_pointer` moved into `manager`'s apply
/// entry. `None` when the list or its place in the managed fields cannot be
/// found, or when nobody else owns any of it (nothing to take over).
pub fn take_over_list(observed: &Value, list_pointer: &str, manager: &str) -> Option<Vec<Value>> {
    let entries = observed.pointer("/metadata/managedFields")?.as_array()?;
    let path = fields_path(observed, list_pointer, entries)?;
    let ours = |e: &Value| {
        e["manager"] == manager && e["operation"] == "Apply" && e.get("subresource").is_none()
    };

    let mut taken = Vec::new();
    let mut kept = Vec::new();
    for entry in entries {
        let mut entry = entry.clone();
        if !ours(&entry)
            && let Some(fields) = entry.get_mut("fieldsV1")
            && let Some(subtree) = remove_at(fields, &path)
        {
            taken.push(subtree);
            if fields.as_object().is_some_and(Map::is_empty) {
                // A manager that owned only this list no longer owns anything.
                continue;
            }
        }
        kept.push(entry);
    }
    if taken.is_empty() {
        return None;
    }

    let position = match kept.iter().position(ours) {
        Some(position) => position,
        None => {
            kept.push(json!({
                "manager": manager,
                "operation": "Apply",
                "apiVersion": observed.get("apiVersion").cloned().unwrap_or(Value::Null),
                "fieldsType": "FieldsV1",
                "fieldsV1": {},
            }));
            kept.len() - 1
        }
    };
    let fields = kept[position]
        .as_object_mut()?
        .entry("fieldsV1")
        .or_insert_with(|| json!({}));
    let mut node = fields;
    for element in &path {
        node = node
            .as_object_mut()?
            .entry(element.clone())
            .or_insert_with(|| json!({}));
    }
    for subtree in taken {
        merge_into(node, subtree);
    }
    Some(kept)
}

/// The fieldsV1 path (`["f:spec", "f:ports"]`) of the JSON pointer into
/// `observed`. A list index becomes the key under which the managed fields
/// record that item (`k:{"name":"runtime"}` or `v:...`), read from the
/// entries themselves, so no schema is needed.
fn fields_path(observed: &Value, pointer: &str, entries: &[Value]) -> Option<Vec<String>> {
    let mut node = observed;
    let mut path: Vec<String> = Vec::new();
    for token in pointer.split('/').skip(1) {
        match node {
            Value::Object(map) => {
                let key = unescape(token);
                node = map.get(&key)?;
                path.push(format!("f:{key}"));
            }
            Value::Array(items) => {
                node = items.get(token.parse::<usize>().ok()?)?;
                path.push(item_key(node, &path, entries)?);
            }
            _ => return None,
        }
    }
    Some(path)
}

/// The managed-fields key of list item `item` under `parent`.
fn item_key(item: &Value, parent: &[String], entries: &[Value]) -> Option<String> {
    entries
        .iter()
        .filter_map(|e| {
            let mut fields = e.get("fieldsV1")?;
            for element in parent {
                fields = fields.get(element)?;
            }
            fields.as_object()
        })
        .flat_map(|children| children.keys())
        .find(|key| {
            if let Some(k) = key.strip_prefix("k:") {
                serde_json::from_str::<Map<String, Value>>(k)
                    .is_ok_and(|k| k.iter().all(|(f, v)| item.get(f) == Some(v)))
            } else if let Some(v) = key.strip_prefix("v:") {
                serde_json::from_str::<Value>(v).is_ok_and(|v| &v == item)
            } else {
                false
            }
        })
        .cloned()
}

/// Removes and returns the subtree at `path`, pruning parents it leaves
/// empty (in fieldsV1 an empty object means "owns this field itself").
fn remove_at(fields: &mut Value, path: &[String]) -> Option<Value> {
    let (first, rest) = path.split_first()?;
    let map = fields.as_object_mut()?;
    if rest.is_empty() {
        return map.remove(first);
    }
    let child = map.get_mut(first)?;
    let removed = remove_at(child, rest)?;
    if child.as_object().is_some_and(Map::is_empty) {
        map.remove(first);
    }
    Some(removed)
}

/// Unions two fieldsV1 trees.
fn merge_into(target: &mut Value, source: Value) {
    match (target.as_object_mut(), source) {
        (Some(target), Value::Object(source)) => {
            for (key, value) in source {
                merge_into(target.entry(key).or_insert_with(|| json!({})), value);
            }
        }
        (_, source) => {
            if target.as_object().is_some_and(Map::is_empty) {
                *target = source;
            }
        }
    }
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Service after `kubectl edit` changed its port from 9000 to 1234.
    fn edited_service() -> Value {
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "rt",
                "managedFields": [
                    {
                        "manager": "trussium-operator",
                        "operation": "Apply",
                        "apiVersion": "v1",
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:metadata": {"f:labels": {"f:a": {}}},
                                     "f:spec": {"f:selector": {}, "f:type": {}}},
                    },
                    {
                        "manager": "kubectl-edit",
                        "operation": "Update",
                        "apiVersion": "v1",
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:spec": {"f:ports": {
                            "k:{\"port\":1234,\"protocol\":\"TCP\"}": {
                                ".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {},
                            },
                        }}},
                    },
                    {
                        "manager": "kube-controller-manager",
                        "operation": "Update",
                        "subresource": "status",
                        "apiVersion": "v1",
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:status": {"f:loadBalancer": {}}},
                    },
                ],
            },
            "spec": {
                "type": "ClusterIP",
                "ports": [{"name": "http", "port": 1234, "protocol": "TCP", "targetPort": 9000}],
            },
        })
    }

    #[test]
    fn innermost_list_on_a_path() {
        let svc = edited_service();
        assert_eq!(
            innermost_list(&svc, "/spec/ports/0/port").as_deref(),
            Some("/spec/ports")
        );
        assert_eq!(
            innermost_list(&svc, "/spec/ports").as_deref(),
            Some("/spec/ports")
        );
        assert_eq!(innermost_list(&svc, "/spec/type"), None);
        // A path the observed object lacks beyond a list still names it.
        assert_eq!(
            innermost_list(&svc, "/spec/ports/0/appProtocol").as_deref(),
            Some("/spec/ports")
        );
        let nested = json!({"spec": {"containers": [{"name": "a", "env": [{"name": "X"}]}]}});
        assert_eq!(
            innermost_list(&nested, "/spec/containers/0/env/0/value").as_deref(),
            Some("/spec/containers/0/env")
        );
        let escaped = json!({"metadata": {"annotations": {"a/b": "x"}}});
        assert_eq!(innermost_list(&escaped, "/metadata/annotations/a~1b"), None);
    }

    #[test]
    fn foreign_list_items_move_to_our_apply_entry() {
        let entries = take_over_list(&edited_service(), "/spec/ports", "trussium-operator");
        let entries = entries.unwrap_or_default();
        // kubectl-edit owned only the port: its entry is gone.
        assert_eq!(entries.len(), 2, "{entries:#?}");
        assert_eq!(
            entries[0]["fieldsV1"],
            json!({
                "f:metadata": {"f:labels": {"f:a": {}}},
                "f:spec": {"f:selector": {}, "f:type": {}, "f:ports": {
                    "k:{\"port\":1234,\"protocol\":\"TCP\"}": {
                        ".": {}, "f:name": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {},
                    },
                }},
            })
        );
        // Other managers' other fields stay theirs.
        assert_eq!(entries[1]["manager"], "kube-controller-manager");
        assert_eq!(
            entries[1]["fieldsV1"],
            json!({"f:status": {"f:loadBalancer": {}}})
        );
    }

    #[test]
    fn other_fields_of_the_foreign_manager_are_kept() {
        let mut svc = edited_service();
        svc["metadata"]["managedFields"][1]["fieldsV1"]["f:spec"]["f:sessionAffinity"] = json!({});
        let entries = take_over_list(&svc, "/spec/ports", "trussium-operator").unwrap_or_default();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[1]["manager"], "kubectl-edit");
        assert_eq!(
            entries[1]["fieldsV1"],
            json!({"f:spec": {"f:sessionAffinity": {}}})
        );
    }

    #[test]
    fn list_items_inside_list_items_are_found_by_their_keys() {
        let deployment = json!({
            "apiVersion": "apps/v1",
            "metadata": {"managedFields": [
                {
                    "manager": "trussium-operator", "operation": "Apply",
                    "fieldsV1": {"f:spec": {"f:containers": {
                        "k:{\"name\":\"runtime\"}": {".": {}, "f:env": {
                            "k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}},
                        }},
                    }}},
                },
                {
                    "manager": "kubectl", "operation": "Update",
                    "fieldsV1": {"f:spec": {"f:containers": {
                        "k:{\"name\":\"runtime\"}": {"f:env": {
                            "k:{\"name\":\"B\"}": {".": {}, "f:name": {}, "f:value": {}},
                        }},
                    }}},
                },
            ]},
            "spec": {"containers": [
                {"name": "runtime", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
            ]},
        });
        let entries = take_over_list(&deployment, "/spec/containers/0/env", "trussium-operator")
            .unwrap_or_default();
        assert_eq!(entries.len(), 1, "{entries:#?}");
        assert_eq!(
            entries[0]["fieldsV1"]["f:spec"]["f:containers"]["k:{\"name\":\"runtime\"}"]["f:env"],
            json!({
                "k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}},
                "k:{\"name\":\"B\"}": {".": {}, "f:name": {}, "f:value": {}},
            })
        );
    }

    /// Our entry is the operator's own apply, nothing else: another tool's
    /// apply (a GitOps controller applying server-side) and an update the
    /// operator made under its own name own items that apply cannot prune.
    #[test]
    fn only_our_own_apply_entry_is_ours() {
        let other_writers = [
            ("argocd-controller", "Apply"),
            ("trussium-operator", "Update"),
        ];
        for (manager, operation) in other_writers {
            let mut svc = edited_service();
            svc["metadata"]["managedFields"][1]["manager"] = json!(manager);
            svc["metadata"]["managedFields"][1]["operation"] = json!(operation);
            let entries =
                take_over_list(&svc, "/spec/ports", "trussium-operator").unwrap_or_default();
            assert_eq!(entries.len(), 2, "{manager} {operation}: {entries:#?}");
            assert!(
                entries[0]["fieldsV1"]["f:spec"]["f:ports"]
                    .get("k:{\"port\":1234,\"protocol\":\"TCP\"}")
                    .is_some(),
                "{manager} {operation}: {entries:#?}"
            );
        }
    }

    /// Items of a set are keyed by their value (`v:`), also on the way to a
    /// list inside one.
    #[test]
    fn set_items_are_found_by_their_values() {
        let observed = json!({
            "metadata": {"managedFields": [
                {"manager": "trussium-operator", "operation": "Apply", "fieldsV1": {"f:spec": {}}},
                {"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {"f:sets": {
                    "v:[1,2]": {"v:1": {}, "v:2": {}},
                }}}},
            ]},
            "spec": {"sets": [[1, 2]]},
        });
        let entries =
            take_over_list(&observed, "/spec/sets/0", "trussium-operator").unwrap_or_default();
        assert_eq!(entries.len(), 1, "{entries:#?}");
        assert_eq!(
            entries[0]["fieldsV1"],
            json!({"f:spec": {"f:sets": {"v:[1,2]": {"v:1": {}, "v:2": {}}}}})
        );
    }

    #[test]
    fn nothing_to_take_over() {
        let mut svc = edited_service();
        svc["metadata"]["managedFields"]
            .as_array_mut()
            .map(|entries| entries.remove(1));
        assert_eq!(
            take_over_list(&svc, "/spec/ports", "trussium-operator"),
            None
        );
        assert_eq!(
            take_over_list(
                &json!({"spec": {"ports": []}}),
                "/spec/ports",
                "trussium-operator"
            ),
            None
        );
    }

    #[test]
    fn an_apply_entry_is_created_when_we_have_none() {
        let mut svc = edited_service();
        svc["metadata"]["managedFields"]
            .as_array_mut()
            .map(|entries| entries.remove(0));
        let entries = take_over_list(&svc, "/spec/ports", "trussium-operator").unwrap_or_default();
        let ours = entries
            .iter()
            .find(|e| e["manager"] == "trussium-operator")
            .cloned()
            .unwrap_or_default();
        assert_eq!(ours["operation"], "Apply");
        assert_eq!(ours["apiVersion"], "v1");
        assert!(ours["fieldsV1"]["f:spec"]["f:ports"].is_object());
    }
}
