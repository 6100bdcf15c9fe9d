/**
 * The error catalogue of section 7: every err_code with its meaning and the advised action,
 * so any command can tell a user what a refusal means and what to do next.
 */

interface CatalogueEntry {
  meaning: string
  action: string
}

const entry = (meaning: string, action: string): CatalogueEntry => ({meaning, action})

export const ERROR_CATALOGUE: Readonly<Record<string, CatalogueEntry>> = {
  APPID_NOT_EXIST: entry('The appid does not exist.', 'Check the appid of the profile (gw profile show).'),
  APPID_MCHID_NOT_MATCH: entry(
    'The appid and the merchant id do not match.',
    'Check the appid of the profile against the merchant platform.',
  ),
  INVALID_ORDER_NO: entry('The order number is wrong.', 'Check that the original order exists and did not fail.'),
  GW_SIGN_ERROR: entry(
    'The gateway rejected the merchant signature.',
    'Check that the profile holds the latest private key and the right sign scheme, then run gw doctor.',
  ),
  GW_SYSTEMERROR: entry(
    'The gateway failed while handling the request.',
    'Send the request again; for a refund, query it first.',
  ),
  GW_VERSION_ERROR: entry('The API version is not compatible.', 'Confirm the current version with the vendor.'),
  GW_ERROR_ORDER_NO: entry(
    'The order number parameter is missing.',
    'Give one of mch_order_no, gw_order_no or channel_order_no.',
  ),
  GW_REFUND_EXPIRE: entry(
    'Refund by API is no longer possible: the order is settled.',
    'Submit the refund on the merchant platform.',
  ),
  GW_INVALID_MCHINFO: entry(
    'The gateway does not know this appid.',
    'Check the appid of the profile and that it belongs to this base URL.',
  ),
  GW_INVALID_ORDER_NO: entry(
    'The gateway found no such order.',
    'Check the order number and the channel; the order may belong to another channel or merchant.',
  ),
  GW_INVALID_REFUND_FEE: entry(
    'The refund amount is greater than the amount available.',
    'Refund at most the order total minus earlier refunds.',
  ),
  GW_INVALID_REFUND_AMOUNT: entry('Partial refunds are not allowed for this order.', 'Refund the full amount.'),
  GW_INVALID_REFUND_BALANCE: entry(
    'The order balance (total minus refunds so far) is less than the refund amount.',
    'Query the order and refund at most its balance.',
  ),
  GW_INVALID_REFUND_ORDER_NO: entry('The refund number was already used.', 'Use a new refund number.'),
  GW_INVALID_REFUND_FEE_OR_TYPE: entry(
    'The refund currency or amount is invalid.',
    'Check fee_type, total_fee and refund_fee against the order.',
  ),
  GW_PARAM_OVERLENGTH: entry('Some parameters are too long.', 'Shorten the fields named in the message.'),
  GW_INVALID_PARAM: entry('Missing or invalid parameters.', 'Correct the parameters named in the message.'),
  GW_DUPLICATED_ORDERNO: entry(
    'The merchant order number was already used.',
    'Use a new merchant order number, or query the existing order.',
  ),
  GW_EXCEED_AMOUNT_LIMIT: entry(
    'The amount exceeds the limit configured for the merchant.',
    'Use a smaller amount or ask the vendor to raise the limit.',
  ),
  GW_FEETYPE_NOT_MATCH: entry(
    'The currency is not registered for this merchant.',
    'Use a currency registered for the merchant.',
  ),
  GW_DUPLICATED_REFUND_ORDERNO: entry(
    'The refund number was already used.',
    'Query the refund: it may already have been made.',
  ),
  GW_AMOUNT_IS_TOO_SMALL: entry('The amount is too small.', 'Send a larger amount.'),
  GW_CHANNEL_RESPONSE_ERROR: entry('The channel failed during the query.', 'Query the order again.'),
  LACK_PARAMS: entry('Mandatory parameters are missing.', 'Add the parameters named in the message.'),
  MCHID_NOT_EXIST: entry('The merchant id does not exist.', 'Check the appid of the profile.'),
  NOAUTH: entry(
    'The merchant has no access to this operation or channel.',
    'Use a channel the operation takes, or contact the vendor.',
  ),
  NOT_UTF8: entry('The request was not UTF-8.', 'Send UTF-8.'),
  NOTENOUGH: entry(
    'Not enough unsettled funds for the refund.',
    'Retry when funds suffice, or arrange credit with the vendor.',
  ),
  ORDERPAID: entry('The order is already closed.', 'Create a new order.'),
  ORDERNOTEXISTR: entry('The order number does not exist.', 'Check the order number.'),
  OUT_TRADE_NO_USED: entry(
    'The same order was submitted several times.',
    'Query the order instead of submitting it again.',
  ),
  PARAM_ERROR: entry('The parameters are not correct.', 'Correct the parameters named in the message.'),
  POST_DATA_EMPTY: entry('The POST body was empty.', 'Send the parameters in the body.'),
  REQUIRE_POST_METHOD: entry('The method was not POST.', 'Send the request with POST.'),
  SYSTEMERROR: entry('System timeout at the gateway.', 'Query the order at once and decide from its state.'),
  SIGNERROR: entry(
    'The signature parameter is wrong.',
    'Check the private key and sign scheme of the profile, then run gw doctor.',
  ),
  TRADE_STATE_ERROR: entry(
    'The refund result is delayed.',
    'Query the refund later: about 20 minutes for a balance payment, 3 working days for a card.',
  ),
  USER_ACCOUNT_ABNORMALE: entry(
    'The payer account is abnormal or unregistered; the refund failed.',
    'Settle the refund with the customer directly.',
  ),
  XML_FORMAT_ERROR: entry('XML format error.', 'Report this to the vendor: gw sends form parameters, not XML.'),
  SHOP_ID_ERROR: entry('Invalid merchant information.', 'Check the appid of the profile.'),
  CANCEL_ERROR: entry(
    'The order cannot be closed: the wallet does not support it, or it is already paid.',
    'Query the order; refund it if it was paid.',
  ),
  ORDER_NOT_EXIST: entry('The order was not found.', 'Check the order number.'),
  USER_NOT_EXIST: entry('The user was not found.', 'Check the merchant order number.'),
  ORDER_NOT_PAY: entry('The order is not paid yet.', 'Only paid orders can be refunded; query the order.'),
  ORDER_ALREADY_REFUND: entry('The order is already refunded.', 'Query the refunds of the order.'),
  REFUND_FAILED: entry('The refund failed.', 'Check the values and try again with a new refund number.'),
  EXPIIRE_ORDER: entry('The order timed out.', 'Create a new order.'),
  ORDER_ERROT: entry('The order number must be unique.', 'Use a new merchant order number.'),
  SHOP_NOT_EXIST: entry('The shop does not exist.', 'Check the appid of the profile.'),
  PRICE_NOT_EXIST: entry('Invalid price: the amount must not be 0.', 'Send an amount above zero.'),
  MCH_ORDER_ERROR: entry('Duplicate order number.', 'Use a new merchant order number.'),
  RADIS_DOES_NOT_EXIST: entry('The URL is not correct.', 'Check the base URL of the profile.'),
  QUERY_ORDER_ERROR: entry('The search hit a failed or uncompleted transaction.', 'Query the order again later.'),
  ORDER_PAYMENT_ERROR: entry('The payment failed.', 'Retry the payment with a new order.'),
  SMS_CODE_ERROR: entry('The OTP code was not received.', 'Ask the payer to request a new code.'),
  CHANNEL_LIST_ERROR: entry(
    'The merchant has not applied for this wallet or card service.',
    'Use a channel the merchant account has, or apply for it.',
  ),
  MEMBER_ID_ERROR: entry('member_id cannot be digits only.', 'Use a member_id mixing letters and digits.'),
  SAVE_CARD_ERROR: entry('The card could not be saved.', 'Try again or use another card.'),
  MEMBER_CARD_ERROR: entry('The card cannot be used.', 'Use another card.'),
  EMPTY_CARD_NO: entry('The card information is incorrect.', 'Check the card information.'),
  DELETE_MEMBER_CARD_ERROR: entry('The card could not be deleted.', 'Try again later.'),
  MEMBER_CARD_NOT_EXIST: entry('The card does not exist.', 'Check the card.'),
  MEMBER_ID_LENGTH_OUT_OF_LIMIT: entry('member_id is longer than 32 characters.', 'Use at most 32 characters.'),
  ORDER_ALREADY_CANCEL: entry('The order was already closed.', 'Create a new order.'),
  ORDER_ALREADY_CANCEL_OPERATION_CANNOT_BE_PERFORMED: entry(
    'The order was closed; the action cannot proceed.',
    'Create a new order.',
  ),
  ORDER_ALREADY_PAY_OPERATION_CANNOT_BE_PERFORMED: entry(
    'The order is already paid; the action cannot proceed.',
    'Query the order; refund it if needed.',
  ),
  ORDER_ALREADY_PAYMENT_SUCCESS: entry('The order is already completed.', 'Query the order.'),
  INSTAL_FEE_PAYER_ERROR: entry(
    'The instalment interest setting failed.',
    'Check instal_fee_payer_merchant_channel_list and instal_fee_payer.',
  ),
  TRUEMONEY_OPT_CODE_ERROR: entry('Wrong OTP code.', 'Ask the payer to enter the code again.'),
  MANY_OPEN: entry('Someone else is paying this bill.', 'Do not pay twice; query the order.'),
  LANG_REPEAT_SUBMIT: entry('Repeated submission.', 'Create a new order.'),
}

/**
 * Answers after which the operation may or may not have happened. They are resolved by
 * querying, never by sending again blindly (docs/design.md, The protocol: Retries).
 */
export const AMBIGUOUS_CODES: readonly string[] = [
  'SYSTEMERROR',
  'GW_SYSTEMERROR',
  'TRADE_STATE_ERROR',
  'GW_CHANNEL_RESPONSE_ERROR',
]

/** The gateway's answer for an order (or, in a refund query, a refund number) it does not know. */
export const ORDER_NOT_FOUND = 'GW_INVALID_ORDER_NO'

/** The gateway's answer for an order that is closed already (section 3). */
export const ALREADY_CLOSED = 'ORDER_ALREADY_CANCEL'

/** A duplicate number on a retry means our earlier attempt may have landed. */
export const DUPLICATE_CODES: readonly string[] = [
  'GW_DUPLICATED_ORDERNO',
  'GW_DUPLICATED_REFUND_ORDERNO',
  'GW_INVALID_REFUND_ORDER_NO',
  'OUT_TRADE_NO_USED',
]

/** The length of a failure's err_msg (section 2.1: String(128)). */
const ERR_MSG_LENGTH = 128

/**
 * A failure's err_msg within its field: whole when it fits, else cut at the last word that
 * fits, with "…": never mid-word, so what is said can still be read.
 */
export function errMsg(text: string): string {
  if (text.length <= ERR_MSG_LENGTH) return text
  const space = text.lastIndexOf(' ', ERR_MSG_LENGTH - 1)
  return `${text.slice(0, space > 0 ? space : ERR_MSG_LENGTH - 1).replace(/[\s,;:]+$/, '')}…`
}

export function lookupError(code: string | undefined): CatalogueEntry | undefined {
  return code ? ERROR_CATALOGUE[code] : undefined
}

/** "GW_INVALID_REFUND_BALANCE: The order balance ... Query the order and ..." */
export function explainError(code: string | undefined, gatewayMessage?: string): string {
  const known = lookupError(code)
  const said = gatewayMessage ? ` (gateway: "${gatewayMessage}")` : ''
  if (!known)
    return `${code ?? 'unknown error'}${said}: a code this version of gw does not know; see the gateway's documentation.`
  return `${code}${said}: ${known.meaning} ${known.action}`
}
