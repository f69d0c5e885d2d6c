import type { RouteDefinition } from '#api/http/route.ts';
import exchangeApiKey from './auth/exchangeApiKey.ts';
import renewAccessToken from './auth/renewAccessToken.ts';
import revokeAccessToken from './auth/revokeAccessToken.ts';
import exchangeConsoleLink from './console/exchangeConsoleLink.ts';
import activateContractFunction from './contract/activateContractFunction.ts';
import callContractFunction from './contract/callContractFunction.ts';
import deactivateContractFunction from './contract/deactivateContractFunction.ts';
import getContractActivatedFunctions from './contract/getContractActivatedFunctions.ts';
import getContracts from './contract/getContracts.ts';
import importContract from './contract/importContract.ts';
import createSubscription from './eventNotifier/createSubscription.ts';
import deleteSubscription from './eventNotifier/deleteSubscription.ts';
import getRecords from './eventNotifier/getRecords.ts';
import getSubscriptions from './eventNotifier/getSubscriptions.ts';
import resendFailedWebhook from './eventNotifier/resendFailedWebhook.ts';
import rewindSubscription from './eventNotifier/rewindSubscription.ts';
import rotateSubscriptionWebhookSecret from './eventNotifier/rotateSubscriptionWebhookSecret.ts';
import updateSubscription from './eventNotifier/updateSubscription.ts';
import updateSubscriptionScan from './eventNotifier/updateSubscriptionScan.ts';
import updateSubscriptionWebhook from './eventNotifier/updateSubscriptionWebhook.ts';
import addSystemWallets from './project/addSystemWallets.ts';
import getProjectDetail from './project/getProjectDetail.ts';
import getProjectMembers from './project/getProjectMembers.ts';
import getProjects from './project/getProjects.ts';
import getStatistics from './project/getStatistics.ts';
import getWalletBalances from './project/getWalletBalances.ts';
import rotateApiKey from './project/rotateApiKey.ts';
import cancelTransaction from './transaction/cancelTransaction.ts';
import executeTransaction from './transaction/executeTransaction.ts';
import getTransaction from './transaction/getTransaction.ts';
import getTransactions from './transaction/getTransactions.ts';
import speedUpTransaction from './transaction/speedUpTransaction.ts';
import createWebhookEndpoint from './webhook/createWebhookEndpoint.ts';
import deleteWebhookEndpoint from './webhook/deleteWebhookEndpoint.ts';
import getWebhookAttempts from './webhook/getWebhookAttempts.ts';
import getWebhookEndpoints from './webhook/getWebhookEndpoints.ts';
import getWebhookMessages from './webhook/getWebhookMessages.ts';
import replayWebhookMessages from './webhook/replayWebhookMessages.ts';
import rotateWebhookEndpointSecret from './webhook/rotateWebhookEndpointSecret.ts';
import updateWebhookEndpoint from './webhook/updateWebhookEndpoint.ts';

/** The operations of the Public API v3, in the order the reference shows them. */
export const routes = [
  getProjects,
  getProjectDetail,
  getProjectMembers,
  rotateApiKey,
  getStatistics,
  getWalletBalances,
  addSystemWallets,
  exchangeConsoleLink,
  exchangeApiKey,
  renewAccessToken,
  revokeAccessToken,
  createSubscription,
  getSubscriptions,
  updateSubscriptionWebhook,
  updateSubscriptionScan,
  updateSubscription,
  rewindSubscription,
  deleteSubscription,
  getRecords,
  resendFailedWebhook,
  getContracts,
  importContract,
  activateContractFunction,
  deactivateContractFunction,
  getContractActivatedFunctions,
  callContractFunction,
  executeTransaction,
  getTransaction,
  getTransactions,
  speedUpTransaction,
  cancelTransaction,
  createWebhookEndpoint,
  getWebhookEndpoints,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookEndpointSecret,
  getWebhookMessages,
  getWebhookAttempts,
  replayWebhookMessages,
  rotateSubscriptionWebhookSecret,
] as unknown as RouteDefinition[];
