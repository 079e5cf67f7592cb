//! A real Redis Cluster of N masters on free ports, built with CLUSTER ADDSLOTS and
//! CLUSTER MEET (no redis-cli needed), and slot migration with CLUSTER SETSLOT and MIGRATE;
//! over TLS too (`--tls-cluster yes`, `--tls-replication yes`).

use std::time::Duration;

use super::tls::TlsConfig;
use super::{wait_until, RedisServer};

pub const SLOTS: u16 = 16384;

pub struct Cluster {
    pub nodes: Vec<RedisServer>,
    /// Nodes `0..masters` are the masters; the rest are their replicas.
    pub masters: usize,
}

impl Cluster {
    /// `masters` nodes, each owning an equal range of the slots, all agreeing that the
    /// cluster is up.
    pub fn start(masters: usize) -> Cluster {
        Self::start_with_replicas(masters, false)
    }

    /// As `start`, and with `replicas` one replica per master: node `masters + i` replicates
    /// node `i`.
    pub fn start_with_replicas(masters: usize, replicas: bool) -> Cluster {
        let nodes = (0..if replicas { 2 * masters } else { masters })
            .map(|_| {
                // The cluster bus listens on port + 10000, so only ports below 55536 work;
                // start_with tries again on another port when this one fails.
                RedisServer::start_with(&[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-node-timeout",
                    "3000",
                    "--cluster-require-full-coverage",
                    "yes",
                ])
            })
            .collect();
        Self::form(nodes, masters, replicas)
    }

    /// As `start_with_replicas`, every node on a TLS port only (`tls`), the cluster bus and
    /// replication over TLS too, a node failing after `node_timeout_ms`. The nodes present
    /// the client certificate of `tls` to each other (servers with `tls-auth-clients yes`
    /// ask for one). None, after a note, when the server chosen by
    /// `$QCTL_TEST_REDIS_SERVER` cannot do TLS.
    pub fn start_tls(
        masters: usize,
        replicas: bool,
        tls: &TlsConfig,
        node_timeout_ms: u64,
    ) -> Option<Cluster> {
        let timeout = node_timeout_ms.to_string();
        let mut extra = vec![
            "--cluster-enabled",
            "yes",
            "--cluster-node-timeout",
            &timeout,
            "--cluster-require-full-coverage",
            "yes",
            "--tls-cluster",
            "yes",
            "--tls-replication",
            "yes",
        ];
        let client = tls
            .client
            .as_ref()
            .map(|(cert, key)| (cert.display().to_string(), key.display().to_string()));
        if let Some((cert, key)) = &client {
            extra.extend(["--tls-client-cert-file", cert, "--tls-client-key-file", key]);
        }
        let mut nodes = Vec::new();
        for _ in 0..if replicas { 2 * masters } else { masters } {
            nodes.push(super::tls::tls_server(tls.clone(), &extra)?);
        }
        Some(Self::form(nodes, masters, replicas))
    }

    /// Gives the first `masters` nodes the slots, joins every node, and makes node
    /// `masters + i` replicate node `i` when `replicas`.
    fn form(nodes: Vec<RedisServer>, masters: usize, replicas: bool) -> Cluster {
        let per = SLOTS as usize / masters;
        for (i, node) in nodes.iter().enumerate().take(masters) {
            let _: () = redis::cmd("CLUSTER")
                .arg("SET-CONFIG-EPOCH")
                .arg(i + 1)
                .query(&mut node.conn())
                .expect("CLUSTER SET-CONFIG-EPOCH");
            let end = if i + 1 == masters {
                SLOTS as usize
            } else {
                (i + 1) * per
            };
            let mut add = redis::cmd("CLUSTER");
            add.arg("ADDSLOTS");
            for slot in i * per..end {
                add.arg(slot);
            }
            let _: () = add.query(&mut node.conn()).expect("CLUSTER ADDSLOTS");
        }
        for node in &nodes[1..] {
            let _: () = redis::cmd("CLUSTER")
                .arg("MEET")
                .arg("127.0.0.1")
                .arg(node.port())
                .query(&mut nodes[0].conn())
                .expect("CLUSTER MEET");
        }
        let cluster = Cluster { nodes, masters };
        if replicas {
            for i in 0..masters {
                let master = cluster.node_id(i);
                let replica = &cluster.nodes[masters + i];
                assert!(
                    wait_until(Duration::from_secs(30), || {
                        redis::cmd("CLUSTER")
                            .arg("REPLICATE")
                            .arg(&master)
                            .query::<()>(&mut replica.conn())
                            .is_ok()
                    }),
                    "a replica could not follow its master"
                );
            }
        }
        assert!(
            wait_until(Duration::from_secs(30), || cluster.is_up()),
            "the cluster did not come up"
        );
        cluster
    }

    /// Every node sees every other and says the cluster is ok.
    fn is_up(&self) -> bool {
        let replicas_synced = self.nodes[self.masters..].iter().all(|node| {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut node.conn())
                .unwrap_or_default();
            info.contains("master_link_status:up")
        });
        replicas_synced
            && self.nodes.iter().all(|node| {
                let info: String = match redis::cmd("CLUSTER").arg("INFO").query(&mut node.conn()) {
                    Ok(info) => info,
                    Err(_) => return false,
                };
                info.contains("cluster_state:ok")
                    && info.contains(&format!("cluster_known_nodes:{}", self.nodes.len()))
                    && self.slot_owners(node).len() == self.masters
            })
    }

    /// The ports of the masters serving slots, as `node` sees them.
    fn slot_owners(&self, node: &RedisServer) -> Vec<u16> {
        let slots: Vec<redis::Value> = redis::cmd("CLUSTER")
            .arg("SLOTS")
            .query(&mut node.conn())
            .unwrap_or_default();
        let mut ports: Vec<u16> = slots
            .iter()
            .filter_map(|range| match range {
                redis::Value::Array(parts) => match parts.get(2) {
                    Some(redis::Value::Array(master)) => master
                        .get(1)
                        .and_then(|p| redis::from_redis_value_ref(p).ok()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        ports.sort();
        ports.dedup();
        ports
    }

    /// The slot of `key`.
    pub fn slot(&self, key: &str) -> u16 {
        redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(key)
            .query(&mut self.nodes[0].conn())
            .expect("CLUSTER KEYSLOT")
    }

    /// The index of the node that owns `slot`, as that node itself says (a node that is
    /// down says nothing).
    pub fn owner_of_slot(&self, slot: u16) -> usize {
        self.try_owner_of_slot(slot).expect("a node owns the slot")
    }

    /// As `owner_of_slot`, or None while no node claims the slot.
    pub fn try_owner_of_slot(&self, slot: u16) -> Option<usize> {
        self.nodes.iter().position(|node| owns(node, slot))
    }

    /// Waits (up to 5 s) until what master `i` acknowledged has reached its replica.
    pub fn replicated(&self, i: usize) {
        let _: i64 = redis::cmd("WAIT")
            .arg(1)
            .arg(5000)
            .query(&mut self.nodes[i].conn())
            .expect("WAIT");
    }

    /// Whether node `i` says it owns `slot` (asks that node only: another may be paused).
    pub fn claims(&self, i: usize, slot: u16) -> bool {
        owns(&self.nodes[i], slot)
    }

    /// The node owning `key`'s slot.
    pub fn owner(&self, key: &str) -> &RedisServer {
        &self.nodes[self.owner_of_slot(self.slot(key))]
    }

    /// The URL of a node that does NOT own `key`'s slot.
    pub fn url_not_owning(&self, key: &str) -> String {
        let owner = self.owner_of_slot(self.slot(key));
        let other = (owner + 1) % self.masters;
        self.nodes[other].url()
    }

    pub fn node_id(&self, i: usize) -> String {
        redis::cmd("CLUSTER")
            .arg("MYID")
            .query(&mut self.nodes[i].conn())
            .expect("CLUSTER MYID")
    }

    /// Moves `slot` from node `from` to node `to` as `redis-cli --cluster reshard` does:
    /// IMPORTING/MIGRATING, MIGRATE of its keys in batches, then SETSLOT NODE everywhere.
    /// Returns how many keys moved.
    pub fn migrate_slot(&self, slot: u16, from: usize, to: usize) -> usize {
        let (from_id, to_id) = (self.node_id(from), self.node_id(to));
        let mut src = self.nodes[from].conn();
        let mut dst = self.nodes[to].conn();
        let _: () = redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("IMPORTING")
            .arg(&from_id)
            .query(&mut dst)
            .expect("SETSLOT IMPORTING");
        let _: () = redis::cmd("CLUSTER")
            .arg("SETSLOT")
            .arg(slot)
            .arg("MIGRATING")
            .arg(&to_id)
            .query(&mut src)
            .expect("SETSLOT MIGRATING");
        let mut moved = 0;
        loop {
            let keys: Vec<String> = redis::cmd("CLUSTER")
                .arg("GETKEYSINSLOT")
                .arg(slot)
                .arg(10)
                .query(&mut src)
                .expect("GETKEYSINSLOT");
            if keys.is_empty() {
                break;
            }
            for key in keys {
                let _: redis::Value = redis::cmd("MIGRATE")
                    .arg("127.0.0.1")
                    .arg(self.nodes[to].port())
                    .arg(&key)
                    .arg(0)
                    .arg(10_000)
                    .query(&mut src)
                    .expect("MIGRATE");
                moved += 1;
            }
        }
        // The new owner first, then the old one, then the rest, as redis-cli does.
        let others = (0..self.nodes.len()).filter(|i| *i != from && *i != to);
        for i in [to, from].into_iter().chain(others) {
            let _: () = redis::cmd("CLUSTER")
                .arg("SETSLOT")
                .arg(slot)
                .arg("NODE")
                .arg(&to_id)
                .query(&mut self.nodes[i].conn())
                .expect("SETSLOT NODE");
        }
        moved
    }
}

/// Whether `node` is up and says it owns `slot`.
fn owns(node: &RedisServer, slot: u16) -> bool {
    let Ok(mut conn) = node.client().and_then(|c| c.get_connection()) else {
        return false;
    };
    let Ok(nodes) = redis::cmd("CLUSTER")
        .arg("NODES")
        .query::<String>(&mut conn)
    else {
        return false;
    };
    let Some(me) = nodes.lines().find(|l| l.contains("myself")) else {
        return false;
    };
    me.split(' ').skip(8).any(|range| {
        if range.starts_with('[') {
            return false;
        }
        let (a, b) = range.split_once('-').unwrap_or((range, range));
        match (a.parse::<u16>(), b.parse::<u16>()) {
            (Ok(a), Ok(b)) => (a..=b).contains(&slot),
            _ => false,
        }
    })
}
