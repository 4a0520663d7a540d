# harmonium re-exports pjrt's HArray and HDataType.
#' harmonium: HArray and HDataType on the pjrt engine
#'
#' A compatibility package: it holds no code of its own and re-exports [pjrt::HArray] and
#' [pjrt::HDataType], whose documentation describes every method.
#'
#' @keywords internal
"_PACKAGE"

#' @importFrom pjrt HArray
#' @export
pjrt::HArray

#' @importFrom pjrt HDataType
#' @export
pjrt::HDataType
