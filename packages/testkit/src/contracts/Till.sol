// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The test contract of payments: a payable function, a function that takes no value, a payable function that
/// refuses too little or while the till is closed, and a receive() for plain transfers. Every payment is counted and
/// announced.
contract Till {
    event Paid(address indexed from, uint256 amount, string memo);

    uint256 public received;
    bool public closed;

    function setClosed(bool value) external {
        closed = value;
    }

    function pay(string calldata memo) external payable {
        received += msg.value;
        emit Paid(msg.sender, msg.value, memo);
    }

    function payAtLeast(uint256 minimum) external payable {
        require(!closed, "closed");
        require(msg.value >= minimum, "too little");
        received += msg.value;
        emit Paid(msg.sender, msg.value, "");
    }

    function note(string calldata memo) external {
        emit Paid(msg.sender, 0, memo);
    }

    receive() external payable {
        received += msg.value;
        emit Paid(msg.sender, msg.value, "");
    }
}
