// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The token the docs samples use: the first contract deployed on a fresh anvil, so its address is the one the
/// pages show (0x5FbDB2315678afecb367f032d93F642f64180aa3).
contract DocsToken {
  event Transfer(address indexed from, address indexed to, uint256 value);
  error InsufficientBalance(uint256 available, uint256 required);

  mapping(address => uint256) public balanceOf;

  constructor(uint256 supply) {
    balanceOf[msg.sender] = supply;
    emit Transfer(address(0), msg.sender, supply);
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    uint256 available = balanceOf[msg.sender];
    if (available < amount) revert InsufficientBalance(available, amount);
    balanceOf[msg.sender] = available - amount;
    balanceOf[to] += amount;
    emit Transfer(msg.sender, to, amount);
    return true;
  }
}
