// Human-readable ABIs for tests and the fuzzer: real-world ones every deployment must import (ERC-20, ERC-721,
// ERC-1155, a Uniswap v3 router, Seaport with its structs), and the shapes that cost a parser the most.
import { type AbiParameter, parseAbi } from 'viem';

export const ERC20_ABI = [
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
];

export const ERC721_ABI = [
  'function balanceOf(address owner) view returns (uint256 balance)',
  'function ownerOf(uint256 tokenId) view returns (address owner)',
  'function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)',
  'function safeTransferFrom(address from, address to, uint256 tokenId)',
  'function transferFrom(address from, address to, uint256 tokenId)',
  'function approve(address to, uint256 tokenId)',
  'function setApprovalForAll(address operator, bool approved)',
  'function getApproved(uint256 tokenId) view returns (address operator)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
];

export const ERC1155_ABI = [
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function balanceOfBatch(address[] accounts, uint256[] ids) view returns (uint256[])',
  'function setApprovalForAll(address operator, bool approved)',
  'function isApprovedForAll(address account, address operator) view returns (bool)',
  'function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)',
  'function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)',
  'function uri(uint256 id) view returns (string)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event ApprovalForAll(address indexed account, address indexed operator, bool approved)',
  'event URI(string value, uint256 indexed id)',
];

export const UNISWAP_V3_ROUTER_ABI = [
  'function exactInputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum, uint160 sqrtPriceLimitX96) params) payable returns (uint256 amountOut)',
  'function exactInput((bytes path, address recipient, uint256 deadline, uint256 amountIn, uint256 amountOutMinimum) params) payable returns (uint256 amountOut)',
  'function exactOutputSingle((address tokenIn, address tokenOut, uint24 fee, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum, uint160 sqrtPriceLimitX96) params) payable returns (uint256 amountIn)',
  'function exactOutput((bytes path, address recipient, uint256 deadline, uint256 amountOut, uint256 amountInMaximum) params) payable returns (uint256 amountIn)',
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function refundETH() payable',
  'function sweepToken(address token, uint256 amountMinimum, address recipient) payable',
  'function unwrapWETH9(uint256 amountMinimum, address recipient) payable',
  'function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes _data)',
  'function factory() view returns (address)',
  'function WETH9() view returns (address)',
];

const SEAPORT_STRUCTS = [
  'struct OfferItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; }',
  'struct ConsiderationItem { uint8 itemType; address token; uint256 identifierOrCriteria; uint256 startAmount; uint256 endAmount; address recipient; }',
  'struct OrderParameters { address offerer; address zone; OfferItem[] offer; ConsiderationItem[] consideration; uint8 orderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 conduitKey; uint256 totalOriginalConsiderationItems; }',
  'struct OrderComponents { address offerer; address zone; OfferItem[] offer; ConsiderationItem[] consideration; uint8 orderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 conduitKey; uint256 counter; }',
  'struct Order { OrderParameters parameters; bytes signature; }',
  'struct AdvancedOrder { OrderParameters parameters; uint120 numerator; uint120 denominator; bytes signature; bytes extraData; }',
  'struct CriteriaResolver { uint256 orderIndex; uint8 side; uint256 index; uint256 identifier; bytes32[] criteriaProof; }',
  'struct FulfillmentComponent { uint256 orderIndex; uint256 itemIndex; }',
  'struct Fulfillment { FulfillmentComponent[] offerComponents; FulfillmentComponent[] considerationComponents; }',
  'struct SpentItem { uint8 itemType; address token; uint256 identifier; uint256 amount; }',
  'struct ReceivedItem { uint8 itemType; address token; uint256 identifier; uint256 amount; address recipient; }',
  'struct Execution { ReceivedItem item; address offerer; bytes32 conduitKey; }',
  'struct AdditionalRecipient { uint256 amount; address recipient; }',
  'struct BasicOrderParameters { address considerationToken; uint256 considerationIdentifier; uint256 considerationAmount; address offerer; address zone; address offerToken; uint256 offerIdentifier; uint256 offerAmount; uint8 basicOrderType; uint256 startTime; uint256 endTime; bytes32 zoneHash; uint256 salt; bytes32 offererConduitKey; bytes32 fulfillerConduitKey; uint256 totalOriginalAdditionalRecipients; AdditionalRecipient[] additionalRecipients; bytes signature; }',
];

const SEAPORT_ERRORS = [
  'BadContractSignature()',
  'BadFraction()',
  'BadReturnValueFromERC20OnTransfer(address token, address from, address to, uint256 amount)',
  'BadSignatureV(uint8 v)',
  'CannotCancelOrder()',
  'ConsiderationCriteriaResolverOutOfRange()',
  'ConsiderationLengthNotEqualToTotalOriginal()',
  'ConsiderationNotMet(uint256 orderIndex, uint256 considerationAmount, uint256 shortfallAmount)',
  'CriteriaNotEnabledForItem()',
  'ERC1155BatchTransferGenericFailure(address token, address from, address to, uint256[] identifiers, uint256[] amounts)',
  'InexactFraction()',
  'InsufficientNativeTokensSupplied()',
  'InvalidBasicOrderParameterEncoding()',
  'InvalidCallToConduit(address conduit)',
  'InvalidConduit(bytes32 conduitKey, address conduit)',
  'InvalidContractOrder(bytes32 orderHash)',
  'InvalidERC721TransferAmount(uint256 amount)',
  'InvalidFulfillmentComponentData()',
  'InvalidMsgValue(uint256 value)',
  'InvalidProof()',
  'InvalidRestrictedOrder(bytes32 orderHash)',
  'InvalidSignature()',
  'InvalidSigner()',
  'InvalidTime(uint256 startTime, uint256 endTime)',
  'MismatchedFulfillmentOfferAndConsiderationComponents(uint256 fulfillmentIndex)',
  'MissingFulfillmentComponentOnAggregation(uint8 side)',
  'MissingItemAmount()',
  'NativeTokenTransferGenericFailure(address account, uint256 amount)',
  'NoContract(address account)',
  'NoReentrantCalls()',
  'NoSpecifiedOrdersAvailable()',
  'OrderAlreadyFilled(bytes32 orderHash)',
  'OrderCriteriaResolverOutOfRange(uint8 side)',
  'OrderIsCancelled(bytes32 orderHash)',
  'OrderPartiallyFilled(bytes32 orderHash)',
  'PartialFillsNotEnabledForOrder()',
  'TokenTransferGenericFailure(address token, address from, address to, uint256 identifier, uint256 amount)',
  'UnresolvedConsiderationCriteria(uint256 orderIndex, uint256 considerationIndex)',
  'UnresolvedOfferCriteria(uint256 orderIndex, uint256 offerIndex)',
  'UnusedItemParameters()',
].map((e) => `error ${e}`);

/** Seaport 1.5's ABI with its structs, as a human-readable ABI. */
export const SEAPORT_ABI = [
  ...SEAPORT_STRUCTS,
  'function cancel(OrderComponents[] orders) returns (bool cancelled)',
  'function fulfillAdvancedOrder(AdvancedOrder advancedOrder, CriteriaResolver[] criteriaResolvers, bytes32 fulfillerConduitKey, address recipient) payable returns (bool fulfilled)',
  'function fulfillAvailableAdvancedOrders(AdvancedOrder[] advancedOrders, CriteriaResolver[] criteriaResolvers, FulfillmentComponent[][] offerFulfillments, FulfillmentComponent[][] considerationFulfillments, bytes32 fulfillerConduitKey, address recipient, uint256 maximumFulfilled) payable returns (bool[] availableOrders, Execution[] executions)',
  'function fulfillAvailableOrders(Order[] orders, FulfillmentComponent[][] offerFulfillments, FulfillmentComponent[][] considerationFulfillments, bytes32 fulfillerConduitKey, uint256 maximumFulfilled) payable returns (bool[] availableOrders, Execution[] executions)',
  'function fulfillBasicOrder(BasicOrderParameters parameters) payable returns (bool fulfilled)',
  'function fulfillBasicOrder_efficient_6GL6yc(BasicOrderParameters parameters) payable returns (bool fulfilled)',
  'function fulfillOrder(Order order, bytes32 fulfillerConduitKey) payable returns (bool fulfilled)',
  'function getContractOffererNonce(address contractOfferer) view returns (uint256 nonce)',
  'function getCounter(address offerer) view returns (uint256 counter)',
  'function getOrderHash(OrderComponents order) view returns (bytes32 orderHash)',
  'function getOrderStatus(bytes32 orderHash) view returns (bool isValidated, bool isCancelled, uint256 totalFilled, uint256 totalSize)',
  'function incrementCounter() returns (uint256 newCounter)',
  'function information() view returns (string version, bytes32 domainSeparator, address conduitController)',
  'function matchAdvancedOrders(AdvancedOrder[] orders, CriteriaResolver[] criteriaResolvers, Fulfillment[] fulfillments, address recipient) payable returns (Execution[] executions)',
  'function matchOrders(Order[] orders, Fulfillment[] fulfillments) payable returns (Execution[] executions)',
  'function name() pure returns (string contractName)',
  'function validate(Order[] orders) returns (bool validated)',
  'event CounterIncremented(uint256 newCounter, address indexed offerer)',
  'event OrderCancelled(bytes32 orderHash, address indexed offerer, address indexed zone)',
  'event OrderFulfilled(bytes32 orderHash, address indexed offerer, address indexed zone, address recipient, SpentItem[] offer, ReceivedItem[] consideration)',
  'event OrdersMatched(bytes32[] orderHashes)',
  'event OrderValidated(bytes32 orderHash, OrderParameters orderParameters)',
  ...SEAPORT_ERRORS,
];

function formatParameter(p: AbiParameter): string {
  const components = 'components' in p ? p.components : undefined;
  const type = components ? `(${components.map(formatParameter).join(', ')})${p.type.slice(5)}` : p.type;
  const indexed = 'indexed' in p && p.indexed ? ' indexed' : '';
  return `${type}${indexed}${p.name ? ` ${p.name}` : ''}`;
}

/** An ABI as abitype's `formatAbi` writes it: structs inlined as tuples (what block explorers' ABIs become). */
export function inlineStructs(entries: readonly string[]): string[] {
  return parseAbi(entries).map((item) => {
    if (!('inputs' in item))
      return `${item.type}() external${'stateMutability' in item ? ` ${item.stateMutability}` : ''}`;
    const inputs = item.inputs.map(formatParameter).join(', ');
    if (item.type === 'function') {
      const mutability = item.stateMutability === 'nonpayable' ? '' : ` ${item.stateMutability}`;
      const outputs = item.outputs.length ? ` returns (${item.outputs.map(formatParameter).join(', ')})` : '';
      return `function ${item.name}(${inputs})${mutability}${outputs}`;
    }
    if (item.type === 'constructor') return `constructor(${inputs})`;
    return `${item.type} ${item.name}(${inputs})`;
  });
}

/** `struct S0 { uint256 x; }` … `struct Sn { Sn-1 a; Sn-1 b; }` and `function f(Sn x)`: 2^n components in 1 KB. */
export function structChain(depth: number): string[] {
  const entries = ['struct S0 { uint256 x; }'];
  for (let i = 1; i <= depth; i++) entries.push(`struct S${i} { S${i - 1} a; S${i - 1} b; }`);
  return [...entries, `function f(S${depth} x)`];
}

/** `function f((((uint256 x) …) t) …)`: inline tuples `depth` deep, each with a sibling component. */
export function nestedTuples(depth: number, name = 'f'): string {
  let param = 'uint256 x';
  for (let i = 0; i < depth; i++) param = `(${param}, uint256 y${i}) t${i}`;
  return `function ${name}(${param})`;
}
