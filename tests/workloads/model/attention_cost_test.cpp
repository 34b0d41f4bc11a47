// Attention work per query token and layer against hand values, one test per attention
// variant, each worked out from the model's published shape (the catalog YAML numbers
// quoted in the comments), not from the helpers attention_cost is built from.
//
// Conventions (from the architectures, not the code):
//   scores QK^T and the weighted sum PV are each 2 FLOPs per multiply-add, so a query that
//   attends to T cached entries with H query heads of width d costs 2HdT + 2HdT = 4HdT;
//   a GQA cache entry holds K and V for every KV head: 2 x kv_heads x head_dim x bytes;
//   an MLA entry is the shared latent plus the rope key: (kv_lora_rank + rope) x bytes.
#include "workloads/model/attention_cost.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/workloads/model/model_fixtures.hpp"

namespace agentsim::wl {
namespace {

const ModelSpec& model(const char* name) { return test::model(name); }

// Llama-3.1-70B: 64 query heads, 8 KV heads, head_dim 128, BF16 KV.
TEST(AttentionCostByHand, GqaFullLlama70bDecodeAndPrefill) {
  const ModelSpec& m = model("llama-3.1-70b");
  // Decode at 4096 cached tokens: 4 x 64 x 128 x 4096 = 134,217,728 FLOPs;
  // one entry 2 x 8 x 128 x 2 B = 4096 B, read 4096 x 4096 B = 16,777,216 B, write 4096 B.
  const AttentionCost d = attention_cost(m, LayerAttention::kGqaFull, 4096, Phase::kDecode);
  EXPECT_EQ(d.attended_tokens, 4096);
  EXPECT_EQ(d.core_flops, 134217728.0);
  EXPECT_EQ(d.kv_read_bytes, 16777216.0);
  EXPECT_EQ(d.kv_write_bytes, 4096.0);
  EXPECT_EQ(d.indexer_flops, 0);
  // A prefill query at the same position does the same math (no absorbed form for GQA).
  const AttentionCost p = attention_cost(m, LayerAttention::kGqaFull, 4096, Phase::kPrefill);
  EXPECT_EQ(p.core_flops, 134217728.0);
  // The whole cache after 4096 tokens: 4096 x 4096 B.
  EXPECT_EQ(PreparedAttention(m, LayerAttention::kGqaFull, Phase::kPrefill).whole_bytes(4096), 16777216.0);
}

// gpt-oss-120b sliding layers: 64 heads x 64, 8 KV heads, window 128, BF16 KV.
TEST(AttentionCostByHand, GqaSlidingWindowCapsAtTheWindow) {
  const ModelSpec& m = model("gpt-oss-120b");
  // At 4096 tokens only the last 128 are attended: 4 x 64 x 64 x 128 = 2,097,152 FLOPs;
  // entry 2 x 8 x 64 x 2 B = 2048 B, read 128 x 2048 = 262,144 B; the ring slot written: 2048 B.
  const AttentionCost d = attention_cost(m, LayerAttention::kGqaSliding, 4096, Phase::kDecode);
  EXPECT_EQ(d.attended_tokens, 128);
  EXPECT_EQ(d.core_flops, 2097152.0);
  EXPECT_EQ(d.kv_read_bytes, 262144.0);
  EXPECT_EQ(d.kv_write_bytes, 2048.0);
  // Below the window it is full attention: 100 tokens x 2048 B.
  EXPECT_EQ(attention_cost(m, LayerAttention::kGqaSliding, 100, Phase::kDecode).kv_read_bytes, 204800.0);
  // The cache is the ring alone: 128 x 2048 B however long the context.
  EXPECT_EQ(PreparedAttention(m, LayerAttention::kGqaSliding, Phase::kDecode).whole_bytes(1e6), 262144.0);
}

// DeepSeek-V3 MLA: 128 heads, kv_lora_rank 512, rope 64, nope 128, v 128, BF16 latent.
TEST(AttentionCostByHand, MlaAbsorbedForDecodeExpandedForPrefill) {
  const ModelSpec& m = model("deepseek-v3");
  // Decode (absorbed): scores over the 576-wide latent+rope key, values in the 512 latent:
  //   2 x 128 x 576 + 2 x 128 x 512 = 147,456 + 131,072 = 278,528 FLOPs per cached token;
  //   x 4096 = 1,140,850,688. Entry (512 + 64) x 2 B = 1152 B; read 4096 x 1152 = 4,718,592 B.
  const AttentionCost d = attention_cost(m, LayerAttention::kMla, 4096, Phase::kDecode);
  EXPECT_EQ(d.core_flops, 1140850688.0);
  EXPECT_EQ(d.kv_read_bytes, 4718592.0);
  EXPECT_EQ(d.kv_write_bytes, 1152.0);
  // Prefill (expanded per head): 2 x 128 x (128 + 64) + 2 x 128 x 128 = 49,152 + 32,768
  //   = 81,920 FLOPs per cached token; x 4096 = 335,544,320.
  const AttentionCost p = attention_cost(m, LayerAttention::kMla, 4096, Phase::kPrefill);
  EXPECT_EQ(p.core_flops, 335544320.0);
  EXPECT_EQ(p.kv_read_bytes, 4718592.0);
}

// DeepSeek-V3.2 DSA: MLA over the top 2048 entries a lightning indexer (64 heads x 128, FP8)
// picks from the whole context; 8052 B of indexer keys per token over 61 layers = 132 B/layer.
TEST(AttentionCostByHand, DeepSeekSparseAttentionV32) {
  const ModelSpec& m = model("deepseek-v3.2");
  // Decode at 100,000 tokens: attends 2048; 278,528 x 2048 = 570,425,344 FLOPs;
  //   indexer 2 x 64 x 128 x 100,000 = 1,638,400,000 FLOPs;
  //   read 2048 x 1152 B (latents) + 100,000 x 132 B (indexer keys) = 2,359,296 + 13,200,000
  //   = 15,559,296 B; write 1152 + 132 = 1284 B.
  const AttentionCost d = attention_cost(m, LayerAttention::kMlaSparse, 100000, Phase::kDecode);
  EXPECT_EQ(d.attended_tokens, 2048);
  EXPECT_EQ(d.core_flops, 570425344.0);
  EXPECT_EQ(d.indexer_flops, 1638400000.0);
  EXPECT_EQ(d.kv_read_bytes, 15559296.0);
  EXPECT_EQ(d.kv_write_bytes, 1284.0);
  // Under the top-k (1000 tokens) it is dense MLA plus the indexer scan:
  //   278,528,000 FLOPs; indexer 16,384,000; read 1000 x (1152 + 132) = 1,284,000 B.
  const AttentionCost s = attention_cost(m, LayerAttention::kMlaSparse, 1000, Phase::kDecode);
  EXPECT_EQ(s.core_flops, 278528000.0);
  EXPECT_EQ(s.indexer_flops, 16384000.0);
  EXPECT_EQ(s.kv_read_bytes, 1284000.0);
}

// DeepSeek-V4-Pro (model card: hybrid CSA / HCA attention, every layer also keeps a raw
// 128-token sliding window). 128 query heads; one shared 512-wide KV entry per token (MQA),
// FP8 KV so 512 B per entry; CSA compresses every 4 tokens into one entry and a lightning
// indexer (64 heads x 128, 128-B FP8 keys per compressed entry) picks the top 512 entries;
// HCA compresses every 128 tokens into one entry and attends to all of them densely.
TEST(AttentionCostByHand, DeepSeekV4CompressedSparseAttention) {
  const ModelSpec& m = model("deepseek-v4-pro");
  // CSA decode at 100,000 tokens: 25,000 compressed entries, top 512 of them + the 128-token
  // window = 640 attended; 4 x 128 x 512 x 640 = 167,772,160 FLOPs;
  //   indexer scans all 25,000: 2 x 64 x 128 x 25,000 = 409,600,000 FLOPs;
  //   read 25,000 x 128 B indexer keys + 640 x 512 B = 3,200,000 + 327,680 = 3,527,680 B;
  //   write: the window slot 512 B + a quarter of a (512 + 128)-B compressed entry = 160 B -> 672 B.
  const AttentionCost csa = attention_cost(m, LayerAttention::kV4Csa, 100000, Phase::kDecode);
  EXPECT_EQ(csa.attended_tokens, 640);
  EXPECT_EQ(csa.core_flops, 167772160.0);
  EXPECT_EQ(csa.indexer_flops, 409600000.0);
  EXPECT_EQ(csa.kv_read_bytes, 3527680.0);
  EXPECT_EQ(csa.kv_write_bytes, 672.0);
  // CSA at 1000 tokens: 250 entries, all under the top-k: 250 + 128 = 378 attended;
  //   4 x 128 x 512 x 378 = 99,090,432; indexer 2 x 64 x 128 x 250 = 4,096,000;
  //   read 250 x 128 + 378 x 512 = 32,000 + 193,536 = 225,536 B.
  const AttentionCost csa_short = attention_cost(m, LayerAttention::kV4Csa, 1000, Phase::kPrefill);
  EXPECT_EQ(csa_short.core_flops, 99090432.0);
  EXPECT_EQ(csa_short.indexer_flops, 4096000.0);
  EXPECT_EQ(csa_short.kv_read_bytes, 225536.0);
  // HCA decode at 100,000: 100,000 / 128 = 781.25 entries + 128 window = 909.25 attended;
  //   4 x 128 x 512 x 909.25 = 238,354,432 FLOPs; read 909.25 x 512 = 465,536 B; no indexer;
  //   write 512 B window + 512 / 128 = 4 B -> 516 B.
  const AttentionCost hca = attention_cost(m, LayerAttention::kV4Hca, 100000, Phase::kDecode);
  EXPECT_EQ(hca.attended_tokens, 909.25);
  EXPECT_EQ(hca.core_flops, 238354432.0);
  EXPECT_EQ(hca.indexer_flops, 0);
  EXPECT_EQ(hca.kv_read_bytes, 465536.0);
  EXPECT_EQ(hca.kv_write_bytes, 516.0);
  // A window-only layer: 128 attended; 4 x 128 x 512 x 128 = 33,554,432; read 65,536 B.
  const AttentionCost swa = attention_cost(m, LayerAttention::kV4Swa, 100000, Phase::kDecode);
  EXPECT_EQ(swa.core_flops, 33554432.0);
  EXPECT_EQ(swa.kv_read_bytes, 65536.0);
  // Whole per-layer cache at 100,000 tokens: CSA 160 B x 100,000 + window 128 x 512 = 16,065,536 B;
  // HCA 4 B x 100,000 + 65,536 = 465,536 B.
  EXPECT_EQ(PreparedAttention(m, LayerAttention::kV4Csa, Phase::kDecode).whole_bytes(100000), 16065536.0);
  EXPECT_EQ(PreparedAttention(m, LayerAttention::kV4Hca, Phase::kDecode).whole_bytes(100000), 465536.0);
}

// Kimi K3 KDA (linear attention): 96 heads with a 128 x 128 FP32 state each, constant in context.
TEST(AttentionCostByHand, KimiDeltaAttentionStateIsConstantInContext) {
  const ModelSpec& m = model("kimi-k3");
  // State update and read-out: 4 x 96 x 128 x 128 = 6,291,456 FLOPs per token;
  // state 96 x 128 x 128 x 4 B = 6,291,456 B read, and written back on decode.
  for (const double ctx : {10.0, 1e6}) {
    const AttentionCost d = attention_cost(m, LayerAttention::kKda, ctx, Phase::kDecode);
    EXPECT_EQ(d.core_flops, 6291456.0);
    EXPECT_EQ(d.kv_read_bytes, 6291456.0);
    EXPECT_EQ(d.kv_write_bytes, 6291456.0);
  }
  EXPECT_EQ(attention_cost(m, LayerAttention::kKda, 1e6, Phase::kPrefill).kv_write_bytes, 0);
  EXPECT_EQ(PreparedAttention(m, LayerAttention::kKda, Phase::kDecode).whole_bytes(1e6), 6291456.0);
}

// The closed-form sum over decodes (the step cost's shortcut) against adding at(ctx) one
// by one: equal bit for bit where it applies, refused where it would not be exact.
AttentionCost one_by_one(const PreparedAttention& a, const std::vector<long long>& contexts, AttentionCost acc) {
  for (long long c : contexts) {
    const AttentionCost x = a.at(static_cast<double>(c));
    acc.core_flops += x.core_flops;
    acc.indexer_flops += x.indexer_flops;
    acc.kv_read_bytes += x.kv_read_bytes;
    acc.kv_write_bytes += x.kv_write_bytes;
  }
  return acc;
}

TEST(AttentionExactSum, ClosedFormEqualsOneByOneForEveryLinearVariant) {
  const std::vector<long long> contexts = {1, 127, 128, 129, 2047, 2048, 2049, 100000, 131071, 7};
  const struct {
    const char* model;
    LayerAttention a;
  } cases[] = {{"llama-3.1-70b", LayerAttention::kGqaFull}, {"gpt-oss-120b", LayerAttention::kGqaSliding},
               {"deepseek-v3", LayerAttention::kMla}, {"deepseek-v3.2", LayerAttention::kMlaSparse}};
  for (const auto& c : cases) {
    const PreparedAttention a(model(c.model), c.a, Phase::kDecode);
    long long sum = 0, capped = 0;
    for (long long x : contexts) {
      sum += x;
      capped += a.decode_cap() >= 0 ? std::min(x, a.decode_cap()) : x;
    }
    AttentionCost start;  // a prefill chunk's integral share already accumulated
    start.core_flops = 4096;
    start.kv_read_bytes = 1024;
    AttentionCost closed = start;
    ASSERT_TRUE(a.add_exact_sum(static_cast<long long>(contexts.size()), sum, capped, closed)) << c.model;
    const AttentionCost want = one_by_one(a, contexts, start);
    EXPECT_EQ(closed.core_flops, want.core_flops) << c.model;
    EXPECT_EQ(closed.indexer_flops, want.indexer_flops) << c.model;
    EXPECT_EQ(closed.kv_read_bytes, want.kv_read_bytes) << c.model;
    EXPECT_EQ(closed.kv_write_bytes, want.kv_write_bytes) << c.model;
  }
  // The caps are the sliding window (128 on gpt-oss) and the DSA top-k (2048); none on full layers.
  EXPECT_EQ(PreparedAttention(model("gpt-oss-120b"), LayerAttention::kGqaSliding, Phase::kDecode).decode_cap(), 128);
  EXPECT_EQ(PreparedAttention(model("deepseek-v3.2"), LayerAttention::kMlaSparse, Phase::kDecode).decode_cap(), 2048);
  EXPECT_EQ(PreparedAttention(model("llama-3.1-70b"), LayerAttention::kGqaFull, Phase::kDecode).decode_cap(), -1);
}

// The kinks of a decode's attention work: between two of them every component of at() is
// affine in the context (a midpoint lies on the chord), and at each one some component bends
// (the midpoint misses the chord): the sliding window (128 on gpt-oss), the DSA top-k (2048 on
// V3.2), and on V4's compressed layers the window and the top-k of compressed entries (512
// entries x 4 tokens each = 2048 on V4-Pro's CSA); none on full MLA or GQA.
TEST(AttentionKinks, WorkIsAffineBetweenKinksAndBendsAtThem) {
  struct Case {
    const char* model;
    LayerAttention a;
    std::vector<double> kinks;
  };
  const Case cases[] = {
      {"gpt-oss-120b", LayerAttention::kGqaSliding, {128}},
      {"gpt-oss-120b", LayerAttention::kGqaFull, {}},
      {"deepseek-v3", LayerAttention::kMla, {}},
      {"deepseek-v3.2", LayerAttention::kMlaSparse, {2048}},
      {"deepseek-v4-pro", LayerAttention::kV4Csa, {128, 2048}},
      {"deepseek-v4-pro", LayerAttention::kV4Hca, {128}},
  };
  auto parts = [](const AttentionCost& c) {
    return std::vector<double>{c.attended_tokens, c.core_flops, c.indexer_flops, c.kv_read_bytes, c.kv_write_bytes};
  };
  for (const Case& c : cases) {
    const PreparedAttention p(model(c.model), c.a, Phase::kDecode);
    std::vector<double> kinks;
    p.append_kinks(kinks);
    std::sort(kinks.begin(), kinks.end());
    EXPECT_EQ(kinks, c.kinks) << c.model;
    // On the chord: three points inside each kink-free interval (and beyond the last kink).
    std::vector<double> edges{1};
    edges.insert(edges.end(), kinks.begin(), kinks.end());
    edges.push_back(1e6);
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
      const double x0 = edges[i], x2 = edges[i + 1], x1 = (x0 + x2) / 2;
      const auto a = parts(p.at(x0)), b = parts(p.at(x1)), z = parts(p.at(x2));
      for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_NEAR(b[k], (a[k] + z[k]) / 2, 1e-9 * std::max(1.0, std::abs(z[k]))) << c.model << " between " << x0
                                                                                     << " and " << x2;
      }
    }
    // Off the chord across each kink.
    for (double kink : kinks) {
      const auto a = parts(p.at(kink - 64)), b = parts(p.at(kink)), z = parts(p.at(kink + 64));
      bool bends = false;
      for (std::size_t k = 0; k < a.size(); ++k) bends |= std::abs(b[k] - (a[k] + z[k]) / 2) > 1e-6 * std::abs(z[k]);
      EXPECT_TRUE(bends) << c.model << " at " << kink;
    }
  }
}

TEST(AttentionExactSum, RefusesWhereAddingOneByOneWouldRound) {
  const PreparedAttention a(model("llama-3.1-70b"), LayerAttention::kGqaFull, Phase::kDecode);
  AttentionCost acc;
  acc.core_flops = 0.5;  // a non-integral running sum: rounding order matters
  const AttentionCost before = acc;
  EXPECT_FALSE(a.add_exact_sum(3, 3000, 3000, acc));
  EXPECT_EQ(acc.core_flops, before.core_flops);
  EXPECT_EQ(acc.kv_read_bytes, before.kv_read_bytes);
  // Totals past 2^53 are not exact integers.
  AttentionCost big;
  EXPECT_FALSE(a.add_exact_sum(1, 1LL << 50, 1LL << 50, big));
  // Compressed (ratio) variants are never summed in closed form.
  const PreparedAttention v4(model("deepseek-v4-pro"), LayerAttention::kV4Csa, Phase::kDecode);
  AttentionCost v;
  EXPECT_FALSE(v4.add_exact_sum(2, 200000, 200000, v));
}

// A speculative verify chunk's queries sit at consecutive contexts: past every kink the closed
// form must give, to the bit, what adding at() one context at a time from zero gives, for every
// variant and phase of the catalog's attention (V4.1's FP4 latents make its terms quarter-integers),
// and refuse inside or below the kinks rather than give a different sum.
TEST(AttentionConsecutiveSum, ClosedFormEqualsOneByOnePastEveryKink) {
  const struct {
    const char* model;
    LayerAttention a;
  } cases[] = {{"llama-3.1-70b", LayerAttention::kGqaFull},   {"gpt-oss-120b", LayerAttention::kGqaSliding},
               {"deepseek-v3", LayerAttention::kMla},         {"deepseek-v3.2", LayerAttention::kMlaSparse},
               {"deepseek-v4-pro", LayerAttention::kV4Csa},   {"deepseek-v4-pro", LayerAttention::kV4Hca},
               {"deepseek-v4-pro", LayerAttention::kV4Swa},   {"deepseek-v4.1-flash", LayerAttention::kV41Csa2}};
  int closed_forms = 0;
  for (const auto& c : cases) {
    for (Phase phase : {Phase::kDecode, Phase::kPrefill}) {
      const PreparedAttention a(model(c.model), c.a, phase);
      std::vector<double> kinks;
      a.append_kinks(kinks);
      const double last_kink = kinks.empty() ? 0.0 : *std::max_element(kinks.begin(), kinks.end());
      for (long long first : {1LL, 100LL, 127LL, 2040LL, 2049LL, 27000LL, 131000LL}) {
        for (long long n : {1LL, 2LL, 6LL, 16LL}) {
          std::vector<long long> contexts;
          for (long long s = 0; s < n; ++s) contexts.push_back(first + s);
          AttentionCost closed;
          closed.core_flops = -1;  // untouched on refusal
          if (!a.consecutive_sum(first, n, closed)) {
            EXPECT_EQ(closed.core_flops, -1) << c.model;
            // Past the kinks it refuses only for a reason: here, every catalog variant qualifies.
            EXPECT_LT(static_cast<double>(first), last_kink) << c.model << " first " << first;
            continue;
          }
          ++closed_forms;
          EXPECT_GE(static_cast<double>(first), last_kink) << c.model << " first " << first;
          const AttentionCost want = one_by_one(a, contexts, AttentionCost{});
          EXPECT_EQ(closed.core_flops, want.core_flops) << c.model << " first " << first << " n " << n;
          EXPECT_EQ(closed.indexer_flops, want.indexer_flops) << c.model << " first " << first << " n " << n;
          EXPECT_EQ(closed.kv_read_bytes, want.kv_read_bytes) << c.model << " first " << first << " n " << n;
          EXPECT_EQ(closed.kv_write_bytes, want.kv_write_bytes) << c.model << " first " << first << " n " << n;
        }
      }
    }
  }
  EXPECT_GT(closed_forms, 150);
}

// Where a term is not a short dyadic (a running sum would round), the closed form refuses.
TEST(AttentionConsecutiveSum, RefusesRunsThatAreTooLongOrStartBeforeThePiece) {
  const PreparedAttention a(model("deepseek-v4.1-flash"), LayerAttention::kV41Csa2, Phase::kDecode);
  AttentionCost out;
  EXPECT_FALSE(a.consecutive_sum(27000, 65, out));  // longer than a verify chunk
  EXPECT_FALSE(a.consecutive_sum(27000, 0, out));
  EXPECT_FALSE(a.consecutive_sum(100, 6, out));     // below the kinks (the window, the top-k)
  EXPECT_TRUE(a.consecutive_sum(27000, 6, out));
}

}  // namespace
}  // namespace agentsim::wl
