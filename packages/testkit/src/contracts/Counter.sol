// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The test contract of the transaction tests: state changes, reverts with reasons and custom errors, every
/// argument type the API converts.
contract Counter {
    struct Point {
        int64 x;
        int64 y;
    }

    uint256 public count;
    bool public locked;
    bytes32 public lastRecord;
    mapping(uint256 => bool) public claimed;

    error TooLarge(uint256 value, uint256 limit);

    event Incremented(address indexed by, uint256 amount, uint256 total);

    function increment(uint256 amount) external {
        require(!locked, "counter is locked");
        if (amount > 1000) revert TooLarge(amount, 1000);
        count += amount;
        emit Incremented(msg.sender, amount, count);
    }

    function setLocked(bool value) external {
        locked = value;
    }

    function claim(uint256 id) external {
        require(!claimed[id], "already claimed");
        claimed[id] = true;
    }

    function record(
        address who,
        bool flag,
        bytes32 tag,
        bytes calldata blob,
        string calldata note,
        uint256[] calldata values,
        int64 delta,
        Point calldata point
    ) external {
        lastRecord = keccak256(abi.encode(who, flag, tag, blob, note, values, delta, point));
    }

    function deposit() external payable {}
}
