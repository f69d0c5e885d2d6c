// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The token the docs samples use: the first contract deployed on a fresh anvil, so its address is the one the
/// pages show (0x5FbDB2315678afecb367f032d93F642f64180aa3). A minimal ERC-20 allowance (approve, transferFrom,
/// allowance) for the best-practices page's chained steps: transferFrom always spends the caller's allowance, also
/// of the caller's own tokens, as OpenZeppelin's ERC20 does.
contract DocsToken {
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);
  error InsufficientBalance(uint256 available, uint256 required);
  error InsufficientAllowance(uint256 available, uint256 required);

  mapping(address => uint256) public balanceOf;
  mapping(address => mapping(address => uint256)) public allowance;

  constructor(uint256 supply) {
    balanceOf[msg.sender] = supply;
    emit Transfer(address(0), msg.sender, supply);
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    _move(msg.sender, to, amount);
    return true;
  }

  function approve(address spender, uint256 amount) external returns (bool) {
    allowance[msg.sender][spender] = amount;
    emit Approval(msg.sender, spender, amount);
    return true;
  }

  function transferFrom(address from, address to, uint256 amount) external returns (bool) {
    uint256 allowed = allowance[from][msg.sender];
    if (allowed < amount) revert InsufficientAllowance(allowed, amount);
    allowance[from][msg.sender] = allowed - amount;
    _move(from, to, amount);
    return true;
  }

  function _move(address from, address to, uint256 amount) private {
    uint256 available = balanceOf[from];
    if (available < amount) revert InsufficientBalance(available, amount);
    balanceOf[from] = available - amount;
    balanceOf[to] += amount;
    emit Transfer(from, to, amount);
  }
}
