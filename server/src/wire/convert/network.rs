//! Conversions of cluster network intents (ovn4nfv provider networks and networks),
//! with the subnet checks of their validation.

use std::net::Ipv4Addr;

use flotilla_api::v1 as pb;

use super::*;
use crate::domain::resources::{
    Ipv4Subnet, NetworkIntentKind, NetworkIntentSpec, ProviderNetworkType, Vlan,
};
use crate::error::{FieldViolation, Result, Violations};
use crate::store::object::Object;

pub fn network_intent_to_proto(o: &Object<NetworkIntentSpec>) -> pb::NetworkIntent {
    let subnets = |subnets: &[Ipv4Subnet]| -> Vec<pb::Ipv4Subnet> {
        subnets
            .iter()
            .map(|s| pb::Ipv4Subnet {
                name: s.name.clone(),
                subnet: s.subnet.clone(),
                gateway: s.gateway.clone(),
                exclude_ips: s.exclude_ips.clone(),
            })
            .collect()
    };
    let spec = match &o.spec.kind {
        NetworkIntentKind::Network {
            cni_type,
            ipv4_subnets,
        } => pb::network_intent::Spec::Network(pb::NetworkSpec {
            cni_type: cni_type.clone(),
            ipv4_subnets: subnets(ipv4_subnets),
        }),
        NetworkIntentKind::ProviderNetwork {
            cni_type,
            ipv4_subnets,
            provider_net_type,
            vlan,
        } => pb::network_intent::Spec::ProviderNetwork(pb::ProviderNetworkSpec {
            cni_type: cni_type.clone(),
            ipv4_subnets: subnets(ipv4_subnets),
            provider_net_type: match provider_net_type {
                ProviderNetworkType::Vlan => pb::ProviderNetworkType::Vlan,
                ProviderNetworkType::Direct => pb::ProviderNetworkType::Direct,
            } as i32,
            vlan: vlan.as_ref().map(|vlan| pb::Vlan {
                vlan_id: vlan.vlan_id,
                provider_interface_name: vlan.provider_interface_name.clone(),
                logical_interface_name: vlan.logical_interface_name.clone(),
                vlan_node_selector: vlan.vlan_node_selector.clone(),
                node_label_list: vlan.node_label_list.clone(),
            }),
        }),
    };
    object_message!(o => pb::NetworkIntent {
        description: o.spec.description.clone(),
        spec: Some(spec),
    })
}

fn parse_cidr(value: &str) -> Result<(Ipv4Addr, u8), String> {
    let (address, prefix) = value
        .split_once('/')
        .ok_or_else(|| format!("{value:?} is not in CIDR notation (a.b.c.d/n)"))?;
    let address: Ipv4Addr = address
        .parse()
        .map_err(|_| format!("{address:?} is not an IPv4 address"))?;
    let prefix: u8 = prefix
        .parse()
        .ok()
        .filter(|p| *p <= 32)
        .ok_or_else(|| format!("{prefix:?} is not a prefix length (0-32)"))?;
    Ok((address, prefix))
}

fn in_subnet(address: Ipv4Addr, network: Ipv4Addr, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    u32::from(address) & mask == u32::from(network) & mask
}

fn subnets_from_proto(
    v: &mut Violations,
    field: &str,
    subnets: &[pb::Ipv4Subnet],
) -> Vec<Ipv4Subnet> {
    if subnets.is_empty() {
        v.add(field, "at least one subnet is required");
    }
    entries(v, field, subnets, MAX_PATCHES, |v, path, s| {
        check_id(v, &format!("{path}.name"), &s.name);
        let subnet = v.check(
            parse_cidr(&s.subnet).map_err(|why| FieldViolation::new(format!("{path}.subnet"), why)),
        );
        let gateway = v.check(
            parse_cidr(&s.gateway)
                .map_err(|why| FieldViolation::new(format!("{path}.gateway"), why)),
        );
        if let (Some((network, prefix)), Some((gateway, _))) = (subnet, gateway)
            && !in_subnet(gateway, network, prefix)
        {
            v.add(
                format!("{path}.gateway"),
                format!("{gateway} is outside {}", s.subnet),
            );
        }
        let field = format!("{path}.exclude_ips");
        let counted = check_count(v, &field, s.exclude_ips.len(), MAX_LIST);
        for (i, exclude) in s.exclude_ips.iter().enumerate().take_while(|_| counted) {
            let ok = exclude
                .split("..")
                .all(|part| part.parse::<Ipv4Addr>().is_ok())
                && exclude.split("..").count() <= 2;
            if !ok {
                v.add(
                    format!("{path}.exclude_ips[{i}]"),
                    format!("{exclude:?} is not an address or range (a.b.c.d..a.b.c.e)"),
                );
            }
        }
        Ipv4Subnet {
            name: s.name.clone(),
            subnet: s.subnet.clone(),
            gateway: s.gateway.clone(),
            exclude_ips: s.exclude_ips.clone(),
        }
    })
}

pub fn network_intent_from_proto(p: &pb::NetworkIntent) -> Result<NetworkIntentSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "network_intent.description", &p.description);
    let kind = match &p.spec {
        None => {
            v.add(
                "network_intent.spec",
                "one of network and provider_network is required",
            );
            None
        }
        Some(pb::network_intent::Spec::Network(n)) => {
            if n.cni_type.is_empty() {
                v.add(
                    "network_intent.network.cni_type",
                    "is required, e.g. \"ovn4nfv\"",
                );
            }
            Some(NetworkIntentKind::Network {
                cni_type: n.cni_type.clone(),
                ipv4_subnets: subnets_from_proto(
                    &mut v,
                    "network_intent.network.ipv4_subnets",
                    &n.ipv4_subnets,
                ),
            })
        }
        Some(pb::network_intent::Spec::ProviderNetwork(n)) => {
            let field = "network_intent.provider_network";
            if n.cni_type.is_empty() {
                v.add(format!("{field}.cni_type"), "is required, e.g. \"ovn4nfv\"");
            }
            let ipv4_subnets =
                subnets_from_proto(&mut v, &format!("{field}.ipv4_subnets"), &n.ipv4_subnets);
            let provider_net_type = match pb::ProviderNetworkType::try_from(n.provider_net_type) {
                Ok(pb::ProviderNetworkType::Vlan) => ProviderNetworkType::Vlan,
                Ok(pb::ProviderNetworkType::Direct) => ProviderNetworkType::Direct,
                Ok(pb::ProviderNetworkType::Unspecified) => {
                    v.add(
                        format!("{field}.provider_net_type"),
                        "is required (VLAN or DIRECT)",
                    );
                    ProviderNetworkType::Direct
                }
                Err(_) => {
                    v.add(
                        format!("{field}.provider_net_type"),
                        format!("unknown enum value {}", n.provider_net_type),
                    );
                    ProviderNetworkType::Direct
                }
            };
            let vlan = n.vlan.as_ref().map(|vlan| Vlan {
                vlan_id: vlan.vlan_id,
                provider_interface_name: vlan.provider_interface_name.clone(),
                logical_interface_name: vlan.logical_interface_name.clone(),
                vlan_node_selector: vlan.vlan_node_selector.clone(),
                node_label_list: vlan.node_label_list.clone(),
            });
            match (&vlan, provider_net_type) {
                (None, ProviderNetworkType::Vlan) => v.add(
                    format!("{field}.vlan"),
                    "is required for VLAN provider networks",
                ),
                (Some(vlan), _) => {
                    if !(1..=4094).contains(&vlan.vlan_id) {
                        v.add(
                            format!("{field}.vlan.vlan_id"),
                            "must be between 1 and 4094",
                        );
                    }
                    if vlan.provider_interface_name.is_empty() {
                        v.add(
                            format!("{field}.vlan.provider_interface_name"),
                            "is required",
                        );
                    }
                    check_count(
                        &mut v,
                        &format!("{field}.vlan.node_label_list"),
                        vlan.node_label_list.len(),
                        MAX_LABELS,
                    );
                    match vlan.vlan_node_selector.as_str() {
                        "all" => {}
                        "specific" if vlan.node_label_list.is_empty() => v.add(
                            format!("{field}.vlan.node_label_list"),
                            "is required when vlan_node_selector is \"specific\"",
                        ),
                        "specific" => {}
                        other => v.add(
                            format!("{field}.vlan.vlan_node_selector"),
                            format!("{other:?} is not \"all\" or \"specific\""),
                        ),
                    }
                    for (i, label) in vlan.node_label_list.iter().enumerate() {
                        if !label.contains('=') {
                            v.add(
                                format!("{field}.vlan.node_label_list[{i}]"),
                                format!("{label:?} is not key=value"),
                            );
                        }
                    }
                }
                (None, ProviderNetworkType::Direct) => {}
            }
            Some(NetworkIntentKind::ProviderNetwork {
                cni_type: n.cni_type.clone(),
                ipv4_subnets,
                provider_net_type,
                vlan,
            })
        }
    };
    v.into_result()?;
    Ok(NetworkIntentSpec {
        description: p.description.clone(),
        kind: kind.expect("set when there are no violations"),
    })
}
