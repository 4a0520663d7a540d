// Tests of stablehlo.custom_call: both op forms, the registry, attribute decoding, the C
// handler interface (layouts, attributes, errors) and print_tensor.
#include "ndbuf/program/custom_call.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "pjrt_custom_call.h"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

// Test target: returns operand 1 plus the integer attribute "add" (default 0), f64 only.
CustomCallKernel bind_add(const CustomCallSite& site) {
  if (site.operands.size() != 1 || site.operands[0].dtype != DType::kF64) {
    fail(ErrorKind::kInvalidArgument, "takes one f64 operand");
  }
  const CustomCallAttribute* add = site.attribute("add");
  const double amount = add == nullptr ? 0.0 : add->number;
  return [amount](const std::vector<Tensor>& args) {
    std::vector<double> v = values<double>(args[0]);
    for (double& x : v) x += amount;
    return std::vector<Tensor>{f64(args[0].shape(), v)};
  };
}

struct Registered {
  explicit Registered(const char* name, CustomCallTarget t) : name_(name) {
    register_custom_call(name, std::move(t));
  }
  ~Registered() { unregister_custom_call(name_); }
  std::string name_;
};

const char* kPretty = R"(func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.custom_call @test_add(%x) {api_version = 4 : i32, backend_config = {add = 2 : i64}} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
})";

const char* kGeneric = R"(func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "test_add", has_side_effect = false} : (tensor<3xf64>) -> tensor<3xf64>
  "func.return"(%0) : (tensor<3xf64>) -> ()
})";

TEST(ProgramCustomCall, BothFormsBindTheRegisteredTarget) {
  Registered reg("test_add", bind_add);
  const Tensor x = f64({3}, {1, 2, 3});
  EXPECT_EQ(values<double>(run(kPretty, {x})[0]), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(values<double>(run(kGeneric, {x})[0]), (std::vector<double>{1, 2, 3}));
}

TEST(ProgramCustomCall, UnknownTargetIsACompileErrorNamingIt) {
  EXPECT_EQ(compile_error(kPretty),
            "2:8: 'stablehlo.custom_call' target 'test_add' is not registered");
  EXPECT_EQ(compile_error(kGeneric),
            "2:8: 'stablehlo.custom_call' target 'test_add' is not registered");
}

TEST(ProgramCustomCall, TargetErrorsCarryTheLocationAndTarget) {
  Registered reg("test_add", bind_add);
  std::string text = kGeneric;
  for (size_t at; (at = text.find("3xf64")) != std::string::npos;) text.replace(at, 5, "3xf32");
  EXPECT_EQ(compile_error(text), "2:8: 'stablehlo.custom_call' @test_add: takes one f64 operand");
}

TEST(ProgramCustomCall, DictionaryTargetNameWinsOverTheSymbol) {
  Registered reg("test_add", bind_add);
  const std::string text = R"(func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.custom_call @something_else(%x) {call_target_name = "test_add"} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
})";
  EXPECT_EQ(values<double>(run(text, {f64({3}, {1, 2, 3})})[0]), (std::vector<double>{1, 2, 3}));
}

TEST(ProgramCustomCall, RegistryReplacesRemovesAndGuardsBuiltins) {
  EXPECT_FALSE(unregister_custom_call("test_add"));
  register_custom_call("test_add", bind_add);
  register_custom_call("test_add", bind_add);  // replacing is allowed
  const auto names = custom_call_targets();
  for (const char* n : {"eigh", "geqrf", "lu", "orgqr", "print_tensor", "svd", "test_add"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_TRUE(unregister_custom_call("test_add"));
  EXPECT_FALSE(find_custom_call("test_add"));
  EXPECT_TRUE(is_builtin_custom_call("svd"));
  EXPECT_FALSE(is_builtin_custom_call("test_add"));
  try {
    register_custom_call("svd", bind_add);
    ADD_FAILURE() << "replaced a built-in";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "'svd' is a built-in custom-call target and cannot be replaced");
  }
  EXPECT_FALSE(unregister_custom_call("svd"));
  EXPECT_THROW(register_custom_call("", bind_add), Error);
}

std::string with_attrs(const std::string& attrs) {
  return "func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {\n"
         "  %0 = stablehlo.custom_call @test_add(%x) {" +
         attrs +
         "} : (tensor<2x3xf64>) -> tensor<2x3xf64>\n"
         "  return %0 : tensor<2x3xf64>\n}";
}

TEST(ProgramCustomCall, AttributeChecks) {
  Registered reg("test_add", bind_add);
  const std::string p = "2:8: 'stablehlo.custom_call' ";
  EXPECT_EQ(compile_error(with_attrs("api_version = 4 : i32, backend_config = \"x\"")),
            p + "backend_config must be a dictionary when api_version is 4");
  EXPECT_EQ(compile_error(with_attrs("api_version = 2 : i32, backend_config = {a = 1}")),
            p + "backend_config may be a dictionary only when api_version is 4");
  EXPECT_EQ(compile_error(with_attrs("api_version = 7 : i32")),
            p + "attribute 'api_version' must be an integer from 0 to 4");
  EXPECT_EQ(compile_error(with_attrs("operand_layouts = [dense<[0, 0]> : tensor<2xindex>]")),
            p + "layout 1 of 'operand_layouts' is not a permutation of the dimensions 0 to 1");
  EXPECT_EQ(compile_error(with_attrs("operand_layouts = [dense<[0]> : tensor<1xindex>]")),
            p + "layout 1 of 'operand_layouts' has 1 entries for a tensor of rank 2");
  EXPECT_EQ(compile_error(with_attrs("result_layouts = []")),
            p + "attribute 'result_layouts' has 0 layouts for 1 tensors");
  EXPECT_EQ(compile_error(with_attrs("called_computations = [@f]")),
            p + "attribute 'called_computations' is not supported by this runtime");
  // A registered target may rely on the aliased memory, which results never share here.
  EXPECT_EQ(compile_error(with_attrs("output_operand_aliases = [#stablehlo.output_operand_alias<"
                                     "output_tuple_indices = [], operand_index = 0, "
                                     "operand_tuple_indices = []>]")),
            p + "attribute 'output_operand_aliases' is not supported by this runtime");
  EXPECT_EQ(compile_error(with_attrs("api_version = 1 : i32, backend_config = \"opaque\", "
                                     "has_side_effect = true, operand_layouts = "
                                     "[dense<[0, 1]> : tensor<2xindex>]")),
            "");
}

// A C handler: result 1 = operand 1 (f64, any rank) + attribute "add", written through the
// declared layouts; it also reports the operand's layout and data order in "trace".
char g_trace[256];

int add_handler(const pjrt_custom_call_frame* frame) {
  if (frame->abi_version != PJRT_CUSTOM_CALL_ABI_VERSION || frame->num_operands != 1) {
    std::snprintf(frame->error, PJRT_CC_ERROR_CAPACITY, "bad frame");
    return 1;
  }
  const pjrt_custom_call_buffer& in = frame->operands[0];
  const pjrt_custom_call_buffer& out = frame->results[0];
  double add = 0;
  for (int32_t k = 0; k < frame->num_attributes; ++k) {
    if (std::strcmp(frame->attributes[k].name, "add") == 0) add = frame->attributes[k].number;
    if (std::strcmp(frame->attributes[k].name, "fail") == 0) {
      std::snprintf(frame->error, PJRT_CC_ERROR_CAPACITY, "asked to fail with %s",
                    frame->attributes[k].string);
      return 1;
    }
  }
  int64_t n = 1;
  for (int32_t d = 0; d < in.rank; ++d) n *= in.dims[d];
  const auto* src = static_cast<const double*>(in.data);
  auto* dst = static_cast<double*>(out.data);
  // Same layout on both sides here, so element k of memory maps to element k.
  for (int64_t k = 0; k < n; ++k) dst[k] = src[k] + add;
  std::snprintf(g_trace, sizeof g_trace, "dtype %d rank %d layout %lld,%lld first %g %g %s",
                in.dtype, in.rank, static_cast<long long>(in.layout[0]),
                static_cast<long long>(in.layout[1]), src[0], src[1], frame->target_name);
  return 0;
}

TEST(ProgramCustomCall, CHandlerSeesDeclaredLayoutsAndAttributes) {
  Registered reg("test_c", c_handler_target(reinterpret_cast<void*>(&add_handler)));
  const std::string text = R"(func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.custom_call @test_c(%x) {api_version = 4 : i32, backend_config = {add = 10 : i64}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})";
  const Tensor x = f64({2, 3}, {1, 2, 3, 4, 5, 6});  // row-major [[1,2,3],[4,5,6]]
  const auto r = run(text, {x});
  EXPECT_EQ(values<double>(r[0]), (std::vector<double>{11, 12, 13, 14, 15, 16}));
  // Column-major memory: element (1, 0) = 4 follows element (0, 0) = 1.
  EXPECT_STREQ(g_trace, "dtype 13 rank 2 layout 0,1 first 1 4 test_c");
  // Without layouts the buffers are row-major.
  std::string plain = text;
  plain.erase(plain.find(", operand_layouts"),
              plain.find("]}") + 1 - plain.find(", operand_layouts"));
  EXPECT_EQ(values<double>(run(plain, {x})[0]), (std::vector<double>{11, 12, 13, 14, 15, 16}));
  EXPECT_STREQ(g_trace, "dtype 13 rank 2 layout 1,0 first 1 2 test_c");
}

TEST(ProgramCustomCall, CHandlerFailureIsAnExecutionError) {
  Registered reg("test_c", c_handler_target(reinterpret_cast<void*>(&add_handler)));
  const std::string text = R"(func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = stablehlo.custom_call @test_c(%x) {api_version = 4 : i32, backend_config = {fail = "reason"}} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})";
  EXPECT_EQ(run_error(text, {f64({2, 3}, {1, 2, 3, 4, 5, 6})}),
            "custom call @test_c failed: asked to fail with reason");
  EXPECT_THROW(c_handler_target(nullptr), Error);
}

TEST(ProgramCustomCall, PrintTensorWritesHeaderBodyFooter) {
  std::vector<std::string> lines;
  set_custom_call_output([&](const std::string& line) { lines.push_back(line); });
  const std::string text = R"(func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  stablehlo.custom_call @print_tensor(%x) {api_version = 4 : i32, has_side_effect = true} : (tensor<2xi32>) -> ()
  stablehlo.custom_call @print_tensor(%x) {api_version = 4 : i32, backend_config = {print_header = "", print_footer = "end"}} : (tensor<2xi32>) -> ()
  "stablehlo.custom_call"(%x) {call_target_name = "print_tensor", api_version = 4 : i32, backend_config = {print_header = "H", print_footer = ""}} : (tensor<2xi32>) -> ()
  return %x : tensor<2xi32>
})";
  run(text, {i32({2}, {7, -8})});
  set_custom_call_output(nullptr);
  EXPECT_EQ(lines, (std::vector<std::string>{"PJRTBuffer", "  7", " -8", "[ i32{2} ]", "  7", " -8",
                                             "end", "H", "  7", " -8"}));
  EXPECT_EQ(compile_error(R"(func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.custom_call @print_tensor(%x) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})"),
            "2:8: 'stablehlo.custom_call' @print_tensor: takes 1 operand and returns 0 results, "
            "not 1 operand and 1 result");
}

// The default footer is upstream pjrt's handler's ("[ bool{3} ]", "[ f32{2,2} ]" in its
// snapshots): no platform, dimensions joined by commas, pred named bool.
TEST(ProgramCustomCall, PrintTensorFooterIsUpstreams) {
  std::vector<std::string> lines;
  set_custom_call_output([&](const std::string& line) { lines.push_back(line); });
  const std::string text =
      R"(func.func @main(%m: tensor<2x2xf32>, %b: tensor<3xi1>, %s: tensor<f64>) -> tensor<f64> {
  stablehlo.custom_call @print_tensor(%m) {api_version = 4 : i32, has_side_effect = true} : (tensor<2x2xf32>) -> ()
  stablehlo.custom_call @print_tensor(%b) {api_version = 4 : i32, has_side_effect = true} : (tensor<3xi1>) -> ()
  stablehlo.custom_call @print_tensor(%s) {api_version = 4 : i32, has_side_effect = true} : (tensor<f64>) -> ()
  return %s : tensor<f64>
})";
  run(text, {f32({2, 2}, {1, 2, 3, 4}), pred({3}, {1, 0, 1}), f64({}, {2})});
  set_custom_call_output(nullptr);
  std::vector<std::string> footers;
  for (const std::string& line : lines) {
    if (line.rfind("[ ", 0) == 0) footers.push_back(line);
  }
  EXPECT_EQ(footers, (std::vector<std::string>{"[ f32{2,2} ]", "[ bool{3} ]", "[ f64{} ]"}));
}

}  // namespace
}  // namespace ndbuf::program
