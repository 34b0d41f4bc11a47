#include "sim/serving/kv_manager.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

long long cache_unit_tokens(long long engine, long long trace) {
  if (engine <= 0) throw core::Error("KV block size must be positive");
  if (trace <= 0) return engine;
  const long long hi = std::max(engine, trace), lo = std::min(engine, trace);
  if (hi % lo != 0) {
    throw core::Error("KV block of " + std::to_string(engine) + " tokens and trace block of " +
                      std::to_string(trace) + " tokens: one must be a multiple of the other");
  }
  return hi;
}

namespace {
std::vector<KvTier> block_tiers(const KvManagerOptions& o) {
  if (o.unit_tokens <= 0) throw core::Error("KV cache unit must be positive");
  std::vector<KvTier> t;
  for (const auto& s : o.tiers) t.push_back(KvTier{s.name, s.capacity_tokens / o.unit_tokens});
  if (t.empty()) throw core::Error("a KV cache needs the HBM tier");
  return t;
}
// Calls step(id) for the ids of blocks [lo, hi) of `ref`'s prompt in order: what
// tr.block_id(ref, i) gives for each i, with one walk up the prefix chain for the whole
// range instead of one per block.
template <class Step>
void for_each_block_id(const wl::Trace& tr, wl::TurnRef ref, std::size_t lo, std::size_t hi, Step& step) {
  if (lo >= hi) return;
  const wl::Session& s = tr.sessions.at(static_cast<std::size_t>(ref.session));
  const wl::Turn& t = s.turns.at(static_cast<std::size_t>(ref.turn));
  const std::size_t shared = t.prefix_parent.valid() ? static_cast<std::size_t>(t.prefix_blocks) : 0;
  if (lo < shared) for_each_block_id(tr, t.prefix_parent, lo, std::min(hi, shared), step);  // the inherited part
  std::size_t i = std::max(lo, shared);
  std::size_t skip = i - shared;  // the turn's own blocks before i
  for (auto r = t.runs_begin; r < t.runs_end && i < hi; ++r) {
    const wl::BlockRun& run = s.block_runs[r];
    if (skip >= run.count) {
      skip -= run.count;
      continue;
    }
    for (auto k = static_cast<std::uint32_t>(skip); k < run.count && i < hi; ++k, ++i) step(run.first + k);
    skip = 0;
  }
  if (i < hi) static_cast<void>(tr.block_id(ref, i));  // past the prompt: throws the trace's error
}

}  // namespace

KvManager::KvManager(core::Simulator& sim, KvManagerOptions opt, std::function<void()> on_freed)
    : sim_(sim), opt_(std::move(opt)), on_freed_(std::move(on_freed)), cache_(block_tiers(opt_)) {
  tier_hit_tokens_.assign(opt_.tiers.size(), 0);
  swap_out_bytes_.assign(opt_.tiers.size(), 0.0);
  swap_in_bytes_.assign(opt_.tiers.size(), 0.0);
}

double KvManager::used_fraction() const {
  const long long cap = cache_.capacity_blocks(0);
  return cap > 0 ? static_cast<double>(cache_.used_blocks(0)) / static_cast<double>(cap) : 0.0;
}

bool KvManager::has_tier(int tier) const {
  return tier < cache_.tiers() && cache_.capacity_blocks(tier) > 0;
}

std::vector<BlockKey> KvManager::keys_for(const Request& r) const { return keys_for(r, true); }

std::vector<BlockKey> KvManager::keys_for(const Request& r, bool remember) const {
  if (!opt_.prefix_caching || !r.trace || !r.turn.valid() || r.trace->block_size_tokens <= 0) return {};
  const wl::Trace& tr = *r.trace;
  // Keys exist only at a granularity that is a whole number of trace blocks (cache_unit_tokens).
  if (opt_.unit_tokens % tr.block_size_tokens != 0) return {};
  const auto& session = tr.sessions[static_cast<std::size_t>(r.turn.session)];
  // Local ids compare only within one replay of a session tree: two agents replaying the
  // same recorded session do not share its prefix.
  // With global ids, a session's own ids (Trace::replay_block_ids_from up) are still the replay's:
  // each is keyed with the replay's namespace, the shared ones (system prompt, repositories) as they are.
  const std::uint64_t root = static_cast<std::uint64_t>(session.root >= 0 ? session.root : r.turn.session);
  const std::uint64_t replay = (root << 32) ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(r.agent));
  const std::uint64_t ns = tr.global_block_ids ? 0 : replay;
  const std::uint64_t own_from = tr.global_block_ids ? tr.replay_block_ids_from : wl::Trace::kAllBlockIdsShared;
  const std::uint64_t replay_salt = mix64(replay ^ 0x7265706c61796964ULL);
  const auto m = static_cast<std::size_t>(opt_.unit_tokens / tr.block_size_tokens);
  const wl::Turn& turn = session.turns[static_cast<std::size_t>(r.turn.turn)];
  const std::size_t length = tr.prompt_blocks(r.turn);

  // Digests are prefix-stable (digest i depends on ids 0..i only), so a turn sharing p
  // blocks with the agent's previous prompt restarts from the last unit end <= p.
  const ChainMemo* prev = nullptr;
  ChainMemo* mine = nullptr;  // the agent's memo, rewritten below when remembering
  const auto agent_key = static_cast<std::uint64_t>(static_cast<std::int64_t>(r.agent));
  if (remember) {
    const std::uint32_t i = chain_index_.find_or_add(agent_key);
    if (i == chains_.size()) chains_.emplace_back();
    mine = &chains_[i];
    prev = mine;
  } else if (const std::uint32_t i = chain_index_.find(agent_key); i != core::FlatIndex::kAbsent) {
    prev = &chains_[i];
  }
  const std::size_t shared = turn.prefix_parent.valid() ? static_cast<std::size_t>(turn.prefix_blocks) : 0;
  std::size_t from = 0;
  std::uint64_t digest = 0;  // of blocks [0, from)
  std::size_t left = m;      // blocks to the next unit end (counted down rather than by a division per block)
  std::vector<std::uint64_t> ends;
  if (prev && prev->trace == &tr && prev->ns == ns && turn.prefix_parent.valid() && prev->turn == turn.prefix_parent &&
      shared <= prev->length) {
    const std::size_t c = std::min(shared / m, prev->unit_digests.size());
    if (mine) {  // the memo is rewritten below: take its digests instead of copying them
      ends = std::move(mine->unit_digests);
      ends.resize(c);
    } else {
      ends.assign(prev->unit_digests.begin(), prev->unit_digests.begin() + static_cast<std::ptrdiff_t>(c));
    }
    if (shared == prev->length && c == shared / m) {
      // The turn extends the whole previous prompt (the usual agentic turn): resume
      // after its last block rather than at its last unit end.
      digest = prev->tail;
      from = shared;
      left = m - shared % m;
    } else {
      if (c > 0) digest = ends.back();
      from = c * m;
    }
  }
  // Grown geometrically: an agent's prompt grows every turn, and the memo's buffer goes with it.
  if (ends.capacity() < length / m) ends.reserve(std::max(length / m, 2 * ends.capacity()));
  std::uint64_t position = from;
  auto step = [&](std::uint64_t id) {
    if (id >= own_from) id = mix64(id ^ replay_salt);
    digest += prefix_term(id, position++);  // independent of the previous term: no serial chain
    if (--left == 0) {
      ends.push_back(digest);
      left = m;
    }
  };
  // The inherited blocks from `from` (walked in place, ancestor by ancestor), then the turn's own.
  if (from < shared) for_each_block_id(tr, turn.prefix_parent, from, shared, step);
  for (auto i = turn.runs_begin; i < turn.runs_end; ++i) {
    for (std::uint32_t k = 0; k < session.block_runs[i].count; ++k) step(session.block_runs[i].first + k);
  }
  // A unit of m trace blocks is keyed by the prefix up to its last block; a truncated
  // prompt keeps only the units it still covers.
  const auto n_units = std::min<std::size_t>((length + m - 1) / m, static_cast<std::size_t>(units_for(r.input_tokens)));
  std::vector<BlockKey> keys;
  keys.reserve(n_units);
  const std::uint64_t seed = prefix_seed(ns);
  for (std::size_t j = 0; j < n_units; ++j) keys.push_back(prefix_key(seed, j < ends.size() ? ends[j] : digest));
  if (mine) *mine = ChainMemo{&tr, ns, r.turn, length, std::move(ends), digest, std::move(mine->entries)};
  return keys;
}

long long KvManager::cached_prefix_tokens(const Request& r) const {
  const auto keys = keys_for(r, false);
  return std::min(cache_.cached_prefix(keys) * opt_.unit_tokens, r.input_tokens);
}

std::optional<KvAdmission> KvManager::admit(const Request& r, long long total_tokens, KvHold& hold) {
  std::vector<BlockKey> keys = keys_for(r);
  return admit(r, keys, total_tokens, hold);
}

std::optional<KvAdmission> KvManager::admit(const Request& r, std::vector<BlockKey>& keys, long long total_tokens,
                                            KvHold& hold) {
  const long long anon = std::max(0LL, units_for(total_tokens) - static_cast<long long>(keys.size()));
  // The agent's previous prompt's entries: its next prompt extends it, so they name most keys.
  ChainMemo* memo = nullptr;
  if (!keys.empty()) {
    const std::uint32_t i = chain_index_.find(static_cast<std::uint64_t>(static_cast<std::int64_t>(r.agent)));
    if (i != core::FlatIndex::kAbsent) memo = &chains_[i];
  }
  auto got = cache_.acquire(keys, anon, &hold.entries, memo ? std::span<const std::uint32_t>(memo->entries)
                                                            : std::span<const std::uint32_t>());
  if (!got) return std::nullopt;
  if (memo) memo->entries = hold.entries;
  KvAdmission a;
  // At least one prompt token is computed, as engines do, so the first token can be sampled.
  a.cached_tokens = std::min(got->prefix_blocks * opt_.unit_tokens, r.input_tokens - 1);
  lookup_tokens_ += r.input_tokens;
  hit_tokens_ += a.cached_tokens;
  // Split the cached tokens over tiers; the cap falls on the deepest tier (the prefix's tail).
  long long left = a.cached_tokens;
  for (std::size_t t = 0; t < got->prefix_blocks_per_tier.size(); ++t) {
    const long long tok = std::min(left, got->prefix_blocks_per_tier[t] * opt_.unit_tokens);
    tier_hit_tokens_[t] += tok;
    left -= tok;
    if (t > 0 && tok > 0) a.load_s += move_s(static_cast<int>(t), tok);
  }
  hold.keys = std::move(keys);
  hold.anon_units = anon;
  hold.hit_units = got->prefix_blocks;
  return a;
}

void KvManager::warm(const Request& r, long long tokens) {
  std::vector<BlockKey> keys = keys_for(r, false);
  keys.resize(std::min(keys.size(), static_cast<std::size_t>(std::max(0LL, tokens) / opt_.unit_tokens)));
  if (keys.empty()) return;
  std::vector<std::uint32_t> entries;
  if (!cache_.acquire(keys, 0, &entries)) return;
  cache_.release(keys, 0, entries);  // every block holds KV: all stay cached
}

bool KvManager::admit_anonymous(long long tokens, KvHold& hold) {
  const long long u = units_for(tokens);
  if (!cache_.reserve(u)) return false;
  hold.keys.clear();
  hold.entries.clear();
  hold.anon_units = u;
  hold.hit_units = 0;
  return true;
}

bool KvManager::grow(KvHold& hold) {
  if (!cache_.reserve(1)) return false;
  ++hold.anon_units;
  return true;
}

void KvManager::drop(KvHold& hold, long long computed_tokens) {
  const auto n = static_cast<long long>(hold.keys.size());
  const long long holding = computed_tokens < 0 ? n : std::min(n, std::max(hold.hit_units, computed_tokens / opt_.unit_tokens));
  cache_.release(hold.keys, hold.anon_units, hold.entries, static_cast<std::size_t>(holding));
  hold.keys.clear();
  hold.entries.clear();
  hold.anon_units = 0;
  hold.hit_units = 0;
}

void KvManager::finish(const Request& r, KvHold& hold) {
  bool more_turns = false;
  if (r.trace && r.turn.valid()) {
    const auto& s = r.trace->sessions[static_cast<std::size_t>(r.turn.session)];
    more_turns = s.turns[static_cast<std::size_t>(r.turn.turn)].gap_kind != wl::GapKind::kNone;
  }
  if (!more_turns || hold.keys.empty() || opt_.retention == Retention::kLru) {
    drop(hold);
    return;
  }
  if (opt_.retention == Retention::kOffload) {
    cache_.release(hold.keys, hold.anon_units, hold.entries);
    cache_.offload(hold.keys);
    hold.keys.clear();
    hold.entries.clear();
    hold.anon_units = 0;
    return;
  }
  // TTL pin: the prefix stays referenced (unevictable) until the timer releases it.
  cache_.release({}, hold.anon_units);
  hold.anon_units = 0;
  sim_.after(core::to_ticks(opt_.ttl_s), [this, keys = std::move(hold.keys), entries = std::move(hold.entries)] {
    cache_.release(keys, 0, entries);
    if (on_freed_) on_freed_();
  });
  hold.keys.clear();
  hold.entries.clear();
}

double KvManager::move_s(int tier, long long tokens) const {
  const auto& t = opt_.tiers[static_cast<std::size_t>(tier)];
  if (t.bw_Bps <= 0) return 0;
  return t.latency_s + static_cast<double>(tokens) * opt_.kv_bytes_per_token / t.bw_Bps;
}

void KvManager::count_swap(int tier, long long out, long long in) {
  swap_out_bytes_[static_cast<std::size_t>(tier)] += static_cast<double>(out) * opt_.kv_bytes_per_token;
  swap_in_bytes_[static_cast<std::size_t>(tier)] += static_cast<double>(in) * opt_.kv_bytes_per_token;
}

metrics::CacheCounters KvManager::counters() const {
  metrics::CacheCounters c;
  c.lookup_tokens = lookup_tokens_;
  c.hit_tokens = hit_tokens_;
  c.preemptions = preemptions_;
  const auto& st = cache_.stats();
  const double unit_bytes = static_cast<double>(opt_.unit_tokens) * opt_.kv_bytes_per_token;
  for (std::size_t t = 0; t < opt_.tiers.size(); ++t) {
    metrics::TierCounters tc;
    tc.name = opt_.tiers[t].name;
    tc.link = opt_.tiers[t].link;
    tc.hit_tokens = tier_hit_tokens_[t];
    tc.evictions = st.tiers[t].dropped + (t + 1 < st.tiers.size() ? st.tiers[t + 1].demoted_in : 0);
    tc.bytes_loaded = static_cast<double>(st.tiers[t].promoted_blocks) * unit_bytes + swap_in_bytes_[t];
    tc.bytes_stored = static_cast<double>(st.tiers[t].demoted_in + st.tiers[t].offloaded_in) * unit_bytes +
                      swap_out_bytes_[t];
    c.tiers.push_back(tc);
  }
  return c;
}

}  // namespace agentsim::serving
