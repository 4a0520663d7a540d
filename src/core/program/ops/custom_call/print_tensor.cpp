// print_tensor: writes its one operand as print() writes a PJRTBuffer, between a header
// (backend_config's print_header, default "PJRTBuffer"; "" for none) and a footer
// (print_footer, default "[ f32{2,3} ]"; "" for none), through the output set with
// set_custom_call_output(). It has no results. The default footer is upstream pjrt's handler's,
// not a buffer's print footer: no platform, dimensions joined by commas, pred named bool;
// clients snapshot this output.
#include "ndbuf/format/format_buffer.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/ops/custom_call/builtin_targets.hpp"

namespace ndbuf::program {
namespace {

std::string default_print_footer(const Tensor& tensor) {
  const std::string name =
      tensor.dtype() == DType::kPred ? "bool" : std::string(dtype_name(tensor.dtype()));
  return "[ " + name + "{" + shape_to_string(tensor.shape(), ",") + "} ]";
}

std::string string_attribute(const CustomCallSite& site, const std::string& name,
                             const std::string& fallback) {
  const CustomCallAttribute* a = site.attribute(name);
  if (a == nullptr) return fallback;
  if (a->kind != CustomCallAttribute::Kind::kString) {
    fail(ErrorKind::kInvalidArgument, "backend_config entry '" + name + "' must be a string");
  }
  return a->text;
}

CustomCallKernel bind_print(const CustomCallSite& site) {
  expect_site_counts(site, 1, 0);
  const std::string header = string_attribute(site, "print_header", "PJRTBuffer");
  const bool has_footer = site.attribute("print_footer") != nullptr;
  const std::string footer = string_attribute(site, "print_footer", "");
  return [header, has_footer, footer](const std::vector<Tensor>& args) {
    const Tensor host = to_host(args[0]);
    BufferPrintOptions options;
    options.header = false;
    options.footer = "";
    if (!header.empty()) write_custom_call_line(header);
    for (const std::string& line : format_buffer(host, options)) write_custom_call_line(line);
    if (!has_footer) {
      write_custom_call_line(default_print_footer(host));
    } else if (!footer.empty()) {
      write_custom_call_line(footer);
    }
    return std::vector<Tensor>{};
  };
}

}  // namespace

std::vector<BuiltinTarget> print_targets() { return {{"print_tensor", bind_print}}; }

void expect_site_counts(const CustomCallSite& site, size_t operands, size_t results) {
  if (site.operands.size() != operands || site.results.size() != results) {
    auto count = [](size_t n, const char* what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    fail(ErrorKind::kInvalidArgument, "takes " + count(operands, "operand") + " and returns " +
                                          count(results, "result") + ", not " +
                                          count(site.operands.size(), "operand") + " and " +
                                          count(site.results.size(), "result"));
  }
}

void expect_site_result(const CustomCallSite& site, size_t k, DType dtype, const Shape& shape) {
  const TensorType& got = site.results[k];
  if (got.dtype != dtype || got.shape != shape) {
    fail(ErrorKind::kInvalidArgument, "result " + std::to_string(k + 1) + " should be " +
                                          tensor_type_to_string(TensorType{dtype, shape}) +
                                          ", not " + tensor_type_to_string(got));
  }
}

std::vector<BuiltinTarget> builtin_targets() {
  std::vector<BuiltinTarget> all = print_targets();
  for (BuiltinTarget& t : linalg_targets()) all.push_back(std::move(t));
  for (BuiltinTarget& t : jax_lapack_targets()) all.push_back(std::move(t));
  for (BuiltinTarget& t : jax_lapack_general_targets()) all.push_back(std::move(t));
  return all;
}

}  // namespace ndbuf::program
