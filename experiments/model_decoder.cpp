#include <array>

#include "experiments/catalog.hpp"
#include "experiments/decode_helpers.hpp"
#include "experiments/yaml_node.hpp"

namespace agentsim::exp {

namespace {

constexpr std::array kModelKeys = {
    OptionSpec{"name", "string", "", "catalog name"},
    OptionSpec{"display_name", "string", "", "human-readable name"},
    OptionSpec{"published_total_params", "number", "", "published parameter count"},
    OptionSpec{"layers", "integer", "", "transformer layers"},
    OptionSpec{"hidden", "integer", "", "hidden size"},
    OptionSpec{"vocab", "integer", "", "vocabulary size"},
    OptionSpec{"tie_embeddings", "bool", "false", "input and output embeddings shared"},
    OptionSpec{"max_context", "integer", "", "context window in tokens"},
    OptionSpec{"attention", "map", "", "attention shape"},
    OptionSpec{"ffn", "map", "", "feed-forward shape"},
    OptionSpec{"precision", "map", "", "numeric formats"},
};
constexpr std::array kAttentionKeys = {
    OptionSpec{"kind", "string", "", "gqa (this build supports gqa)"},
    OptionSpec{"heads", "integer", "", "query heads"},
    OptionSpec{"kv_heads", "integer", "", "key/value heads"},
    OptionSpec{"head_dim", "integer", "", "head dimension"},
};
constexpr std::array kFfnKeys = {
    OptionSpec{"dense_intermediate", "integer", "", "SwiGLU intermediate width"},
};
constexpr std::array kPrecisionKeys = {
    OptionSpec{"weights", "dtype", "", "fp4 | fp8 | bf16"},
    OptionSpec{"kv_cache", "dtype", "", "fp8 | bf16"},
};

}  // namespace

wl::ModelSpec decode_model(const YamlNode& n) {
  n.check_keys(kModelKeys);
  wl::ModelSpec m;
  m.name = n.at("name").as_string();
  m.published_total_params = n.at("published_total_params").as_number();
  m.layers = positive_int(n.at("layers"));
  m.hidden = positive_int(n.at("hidden"));
  m.vocab = positive_int(n.at("vocab"));
  if (n.has("tie_embeddings")) m.tie_embeddings = n.at("tie_embeddings").as_bool();
  m.max_context = positive_int(n.at("max_context"));
  const YamlNode att = n.at("attention");
  att.check_keys(kAttentionKeys);
  if (att.at("kind").as_string() != "gqa") {
    throw att.at("kind").error("unsupported attention kind '" + att.at("kind").as_string() + "'; valid: gqa");
  }
  m.heads = positive_int(att.at("heads"));
  m.kv_heads = positive_int(att.at("kv_heads"));
  m.head_dim = positive_int(att.at("head_dim"));
  if (m.heads % m.kv_heads != 0) throw att.at("kv_heads").error("must divide heads");
  const YamlNode ffn = n.at("ffn");
  ffn.check_keys(kFfnKeys);
  m.ffn_intermediate = positive_int(ffn.at("dense_intermediate"));
  const YamlNode prec = n.at("precision");
  prec.check_keys(kPrecisionKeys);
  m.weight_dtype = dtype(prec.at("weights"));
  m.kv_dtype = dtype(prec.at("kv_cache"));
  return m;
}

}  // namespace agentsim::exp
