#include "src/embed/use_lite_converter.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/embed/use_lite_kernels.h"
#include "src/embed/use_lite_model_file.h"
#include "src/embed/use_lite_tokenizer.h"

namespace engram {
namespace {

constexpr uint32_t kVocabRows = 8002;
constexpr uint32_t kEmbedDim = 256;
constexpr uint32_t kModelDim = 512;
constexpr uint32_t kFfnDim = 1536;
constexpr uint32_t kTimescales = 128;
constexpr int32_t kMaxTokens = 128;

// TF.js weight names, shortened by these two prefixes.
constexpr char kApply[] = "module_apply_default/Encoder_en/KonaTransformer/Encode/";
constexpr char kVars[] = "module/Encoder_en/KonaTransformer/Encode/";

// One tensor the encoder needs: its short name in the model file, its
// TF.js weight name and the shape it is stored with (dimensions of size 1
// that the graph adds for Conv2D kernels dropped).
struct TensorSpec {
  std::string name;
  std::string tf_name;
  std::vector<uint32_t> shape;
};

std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (const std::string_view part : parts) out.append(part);
  return out;
}

std::vector<TensorSpec> TensorSpecs() {
  const std::string apply = kApply;
  const std::string vars = kVars;
  std::vector<TensorSpec> specs = {
      {"embedding", "module/Embeddings_en", {kVocabRows, kEmbedDim}},
      {"timing.inv_timescales",
       apply + "TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1",
       {kTimescales}},
      {"norm_epsilon",
       apply +
           "TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x",
       {}},
      {"layer0.residual.kernel",
       apply + "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat",
       {kEmbedDim, kModelDim}},
      {"layer0.residual.bias",
       apply + "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat",
       {kModelDim}},
      {"pool.kernel",
       "module/Encoder_en/hidden_layers/tanh_layer_0/weights",
       {kModelDim, kModelDim}},
      {"pool.bias", "module/Encoder_en/hidden_layers/tanh_layer_0/bias", {kModelDim}},
      {"l2_epsilon", "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y", {}},
  };
  for (const int layer : {0, 1}) {
    const std::string l = Cat({"layer", std::to_string(layer), "."});
    const std::string tf = Cat({"Layer_", std::to_string(layer), "/TransformerLayer/"});
    const std::string stack = Cat({apply, "TransformerStack/", tf});
    const std::string attention = Cat({tf, "MultiheadAttention/"});
    const std::string norm1 = Cat({apply, tf, "layer_prepostprocess/layer_norm/layer_norm_"});
    const std::string norm2 = Cat({apply, tf, "FFN/layer_prepostprocess/layer_norm/layer_norm_"});
    const std::string concat = "/ConcatPartitions/concat";
    const uint32_t in = layer == 0 ? kEmbedDim : kModelDim;
    const auto add = [&](std::string_view name, std::string tf_name, std::vector<uint32_t> shape) {
      specs.push_back({Cat({l, name}), std::move(tf_name), std::move(shape)});
    };
    add("norm1.scale", Cat({norm1, "scale", concat}), {in});
    add("norm1.bias", Cat({norm1, "bias", concat}), {in});
    add("qkv.kernel", Cat({vars, attention, "qkv_transform_single/kernel/part_0"}), {in, 3 * in});
    add("qkv.bias", Cat({apply, attention, "qkv_transform_single/bias", concat}), {3 * in});
    add("query_scale", Cat({stack, "MultiheadAttention/mul/y"}), {});
    add("output.kernel", Cat({vars, attention, "output_transform_single/kernel/part_0"}),
        {in, kModelDim});
    add("output.bias", Cat({apply, attention, "output_transform_single/bias", concat}),
        {kModelDim});
    add("norm2.scale", Cat({norm2, "scale", concat}), {kModelDim});
    add("norm2.bias", Cat({norm2, "bias", concat}), {kModelDim});
    add("ffn1.kernel", Cat({stack, "FFN/conv1/Tensordot/Reshape_1"}), {kModelDim, kFfnDim});
    add("ffn1.bias", Cat({apply, tf, "FFN/conv1/bias", concat}), {kFfnDim});
    add("ffn2.kernel", Cat({stack, "FFN/conv2/Tensordot/Reshape_1"}), {kFfnDim, kModelDim});
    add("ffn2.bias", Cat({apply, tf, "FFN/conv2/bias", concat}), {kModelDim});
  }
  return specs;
}

// A decoded manifest weight: floats, or int32 values for graph constants.
struct Weight {
  std::vector<uint32_t> shape;
  std::vector<float> floats;
  std::vector<int32_t> ints;
  bool is_int = false;
};

Result<std::string> ReadBinary(const std::string& path, std::string_view what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return NotFound("embed: convert: " + std::string(what) + " missing: " + path);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return IOError("embed: convert: cannot read " + path);
  return bytes;
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half >> 15) << 31;
  const int exponent = (half >> 10) & 0x1F;
  const uint32_t mantissa = half & 0x3FF;
  float magnitude = 0.0f;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return std::bit_cast<float>(std::bit_cast<uint32_t>(magnitude) | sign);
}

template <typename T>
T Load(const char* bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

// Decodes `count` values of manifest `entry` from `bytes` (`available`
// bytes long) into `weight`; sets `*consumed` to the bytes they took.
Status DecodeWeight(const nlohmann::json& entry, const std::string& name, size_t count,
                    const char* bytes, size_t available, Weight* weight, size_t* consumed) {
  const std::string dtype = entry.value("dtype", "");
  std::string stored = dtype;
  double scale = 1.0;
  double min = 0.0;
  if (entry.contains("quantization")) {
    const nlohmann::json& q = entry["quantization"];
    stored = q.value("dtype", "");
    scale = q.value("scale", 1.0);
    min = q.value("min", 0.0);
  }
  size_t width = 0;
  if (stored == "float32" || stored == "int32") {
    width = 4;
  } else if (stored == "uint16" || stored == "float16") {
    width = 2;
  } else if (stored == "uint8") {
    width = 1;
  } else {
    return NotSupported("embed: convert: weight " + name + ": dtype '" + stored +
                        "' not supported");
  }
  if (count * width > available) {
    return InvalidArgument("embed: convert: weight " + name + " needs " +
                           std::to_string(count * width) + " bytes, the shards hold only " +
                           std::to_string(available) + " more");
  }
  *consumed = count * width;
  weight->is_int = dtype == "int32";
  if (weight->is_int && stored != "int32") {
    return NotSupported("embed: convert: weight " + name + ": quantized int32");
  }
  if (dtype != "float32" && dtype != "int32") {
    return NotSupported("embed: convert: weight " + name + ": dtype '" + dtype + "'");
  }
  if (weight->is_int) {
    weight->ints.resize(count);
    std::memcpy(weight->ints.data(), bytes, count * 4);
    return Status::OK();
  }
  weight->floats.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (stored == "float32") {
      weight->floats[i] = Load<float>(bytes, i);
    } else if (stored == "float16") {
      weight->floats[i] = HalfToFloat(Load<uint16_t>(bytes, i));
    } else if (stored == "uint16") {
      weight->floats[i] = static_cast<float>(Load<uint16_t>(bytes, i) * scale + min);
    } else {
      weight->floats[i] = static_cast<float>(static_cast<uint8_t>(bytes[i]) * scale + min);
    }
  }
  return Status::OK();
}

// Decodes every weight of one manifest group from its shards in `dir`.
Status DecodeGroup(const std::string& dir, const nlohmann::json& group, size_t group_index,
                   std::map<std::string, Weight>* weights) {
  const std::string where = "embed: convert: weightsManifest[" + std::to_string(group_index) + "]";
  if (!group.is_object() || !group.contains("paths") || !group["paths"].is_array() ||
      !group.contains("weights") || !group["weights"].is_array()) {
    return InvalidArgument(where + ": needs 'paths' and 'weights' arrays");
  }
  std::string bytes;
  for (const nlohmann::json& path : group["paths"]) {
    if (!path.is_string()) return InvalidArgument(where + ": a path is not a string");
    ENGRAM_ASSIGN_OR_RETURN(const std::string shard,
                            ReadBinary(dir + "/" + path.get<std::string>(), "weight shard"));
    bytes += shard;
  }
  size_t offset = 0;
  for (const nlohmann::json& entry : group["weights"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
        !entry.contains("shape") || !entry["shape"].is_array()) {
      return InvalidArgument(where + ": a weight lacks 'name' or 'shape'");
    }
    const std::string name = entry["name"].get<std::string>();
    Weight weight;
    size_t count = 1;
    for (const nlohmann::json& dim : entry["shape"]) {
      if (!dim.is_number_unsigned() || dim.get<uint64_t>() > (1u << 30)) {
        return InvalidArgument("embed: convert: weight " + name + ": bad shape");
      }
      weight.shape.push_back(dim.get<uint32_t>());
      count *= weight.shape.back();
    }
    size_t consumed = 0;
    ENGRAM_RETURN_IF_ERROR(DecodeWeight(entry, name, count, bytes.data() + offset,
                                        bytes.size() - offset, &weight, &consumed));
    offset += consumed;
    weights->insert_or_assign(name, std::move(weight));
  }
  if (offset != bytes.size()) {
    return InvalidArgument(where + ": weights take " + std::to_string(offset) +
                           " bytes but the shards hold " + std::to_string(bytes.size()));
  }
  return Status::OK();
}

Result<int32_t> IntScalar(const std::map<std::string, Weight>& weights, const std::string& name) {
  const auto it = weights.find(name);
  if (it == weights.end() || !it->second.is_int || it->second.ints.size() != 1) {
    return NotFound("embed: convert: int32 scalar " + name + " missing from the manifest");
  }
  return it->second.ints[0];
}

Result<std::vector<UseLiteTokenizer::Piece>> ReadVocab(const std::string& path) {
  ENGRAM_ASSIGN_OR_RETURN(const std::string text, ReadBinary(path, "vocabulary"));
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json vocab,
                          ParseJson(text, "embed: convert: " + path + ": not valid JSON"));
  if (!vocab.is_array()) return InvalidArgument("embed: convert: " + path + ": not an array");
  std::vector<UseLiteTokenizer::Piece> pieces;
  for (size_t i = 0; i < vocab.size(); ++i) {
    const nlohmann::json& entry = vocab[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() ||
        !(entry[1].is_number() || entry[1].is_null())) {
      return InvalidArgument("embed: convert: " + path + ": entry " + std::to_string(i) +
                             " is not a [piece, score] pair");
    }
    pieces.push_back(
        {entry[0].get<std::string>(), entry[1].is_null() ? 0.0 : entry[1].get<double>()});
  }
  return pieces;
}

}  // namespace

Status ConvertUseLitePackage(const std::string& dist_dir, const std::string& out_path) {
  ENGRAM_ASSIGN_OR_RETURN(const std::string model_text,
                          ReadBinary(dist_dir + "/model.json", "model.json"));
  ENGRAM_ASSIGN_OR_RETURN(nlohmann::json model_json,
                          ParseJson(model_text, "embed: convert: model.json: not valid JSON"));
  if (!model_json.is_object() || !model_json.contains("weightsManifest") ||
      !model_json["weightsManifest"].is_array()) {
    return InvalidArgument("embed: convert: model.json has no weightsManifest array");
  }
  std::map<std::string, Weight> weights;
  const nlohmann::json& manifest = model_json["weightsManifest"];
  for (size_t g = 0; g < manifest.size(); ++g) {
    ENGRAM_RETURN_IF_ERROR(DecodeGroup(dist_dir, manifest[g], g, &weights));
  }

  // The graph constants the encoder's fixed behaviour depends on.
  const std::string kona = "module_apply_default/Encoder_en/KonaTransformer/";
  ENGRAM_ASSIGN_OR_RETURN(const int32_t max_tokens,
                          IntScalar(weights, kona + "ClipToMaxLength/Less/y"));
  ENGRAM_ASSIGN_OR_RETURN(const int32_t pad_id,
                          IntScalar(weights, kona + "Encode/SparseToDense/default_value"));
  if (max_tokens != kMaxTokens || pad_id != -1) {
    return NotSupported("embed: convert: graph reads " + std::to_string(max_tokens) +
                        " tokens with padding id " + std::to_string(pad_id) +
                        "; the encoder implements 128 and -1");
  }

  UseLiteModelData model;
  std::deque<std::vector<float>> packed_kernels;  // what the .panels tensors view
  model.max_tokens = static_cast<uint32_t>(max_tokens);
  model.output_dim = kModelDim;
  ENGRAM_ASSIGN_OR_RETURN(model.pieces, ReadVocab(dist_dir + "/vocab.json"));
  // Built here (with the tokenizer's own checks: non-empty UTF-8 pieces,
  // finite scores) and stored, so that no process that loads the model
  // builds them again.
  ENGRAM_ASSIGN_OR_RETURN(const std::unique_ptr<UseLiteTokenizer> tokenizer,
                          UseLiteTokenizer::FromPieces(model.pieces));
  model.tokenizer = tokenizer->GetTables();
  for (const TensorSpec& spec : TensorSpecs()) {
    const auto it = weights.find(spec.tf_name);
    if (it == weights.end() || it->second.is_int) {
      return NotFound("embed: convert: float weight " + spec.tf_name + " (for " + spec.name +
                      ") missing from the manifest");
    }
    std::vector<uint32_t> shape;  // without the size-1 dimensions
    for (const uint32_t dim : it->second.shape) {
      if (dim != 1) shape.push_back(dim);
    }
    std::vector<uint32_t> want;
    for (const uint32_t dim : spec.shape) {
      if (dim != 1) want.push_back(dim);
    }
    if (shape != want) {
      std::string got;
      for (const uint32_t dim : it->second.shape)
        got += (got.empty() ? "" : ",") + std::to_string(dim);
      return InvalidArgument("embed: convert: weight " + spec.tf_name + " has shape [" + got +
                             "], expected " + std::to_string(spec.shape.size()) + "-d " +
                             spec.name);
    }
    for (const float value : it->second.floats) {
      if (!std::isfinite(value)) {
        return InvalidArgument("embed: convert: weight " + spec.tf_name + " is not finite");
      }
    }
    // A view: `weights` outlives the write below.
    model.tensors[spec.name] = UseLiteTensor{spec.shape, it->second.floats};
    if (!spec.name.ends_with(kUseLiteKernelSuffix)) continue;
    // A dense kernel [in, out] is stored as is (for sgemm) and also in the
    // column panels [out / 16, in, 16] of the encoder's own kernel, so that
    // loading either copies nothing.
    const uint32_t in = spec.shape[0];
    const uint32_t out = spec.shape[1];
    std::vector<float>& panels =
        packed_kernels.emplace_back(UseLitePanelCount(out) * in * kUseLitePanelWidth);
    UseLitePackPanels(it->second.floats.data(), in, out, panels.data());
    const std::string base = spec.name.substr(0, spec.name.size() - kUseLiteKernelSuffix.size());
    model.tensors[base + std::string(kUseLitePanelsSuffix)] =
        UseLiteTensor{{static_cast<uint32_t>(UseLitePanelCount(out)), in,
                       static_cast<uint32_t>(kUseLitePanelWidth)},
                      panels};
  }
  return WriteUseLiteModelFile(model, out_path);
}

}  // namespace engram
